package org.p2psip.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The last minutes of a few series, for the status page's charts: rates (per second, from a
 * cumulative count) and means over each interval (a cumulative sum over a cumulative count, such
 * as a timer's total time over its count). {@link #sample()} is called at a fixed interval by the
 * owner; the page reads {@link #json()}. Thread-safe.
 */
public final class History {

    private final int capacity;
    private final LongSupplier clock;
    private final List<Series> series = new CopyOnWriteArrayList<>();
    private final long[] times;
    private int next;
    private int size;

    /** {@code capacity} samples kept; {@code clock} in milliseconds. */
    public History(int capacity, LongSupplier clock) {
        this.capacity = capacity;
        this.clock = clock;
        this.times = new long[capacity];
    }

    /** Per second, from a count that only grows. */
    public History rate(String name, DoubleSupplier count) {
        series.add(new Series(name, count, null, capacity));
        return this;
    }

    /** {@code sum}'s growth over {@code count}'s in each interval, times {@code scale}; 0 when count did not grow. */
    public History mean(String name, DoubleSupplier sum, DoubleSupplier count, double scale) {
        series.add(new Series(name, () -> sum.getAsDouble() * scale, count, capacity));
        return this;
    }

    /** Takes one sample of every series. */
    public synchronized void sample() {
        long now = clock.getAsLong();
        double seconds = size == 0 ? 0 : (now - times[(next + capacity - 1) % capacity]) / 1000.0;
        for (Series s : series) {
            s.sample(next, seconds);
        }
        times[next] = now;
        next = (next + 1) % capacity;
        size = Math.min(size + 1, capacity);
    }

    /** {"t":[ms...],"name":[values...],...}, oldest first; the first sample of each series is 0. */
    public synchronized String json() {
        var out = new StringBuilder("{\"t\":[");
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            order.add((next - size + i + capacity) % capacity);
        }
        join(out, order, i -> Long.toString(times[i]));
        out.append(']');
        for (Series s : series) {
            out.append(",").append(Json.string(s.name)).append(":[");
            join(out, order, i -> Json.number(s.values[i]));
            out.append(']');
        }
        return out.append('}').toString();
    }

    private static void join(StringBuilder out, List<Integer> order, java.util.function.IntFunction<String> value) {
        for (int k = 0; k < order.size(); k++) {
            out.append(k == 0 ? "" : ",").append(value.apply(order.get(k)));
        }
    }

    /** One series: its last readings and its values. */
    private static final class Series {
        final String name;
        final DoubleSupplier top;
        final DoubleSupplier bottom;   // null: a rate
        final double[] values;
        double lastTop = Double.NaN;
        double lastBottom;

        Series(String name, DoubleSupplier top, DoubleSupplier bottom, int capacity) {
            this.name = name;
            this.top = top;
            this.bottom = bottom;
            this.values = new double[capacity];
        }

        void sample(int slot, double seconds) {
            double t = top.getAsDouble();
            double b = bottom == null ? seconds : bottom.getAsDouble();
            double grewTop = t - lastTop;
            double grewBottom = bottom == null ? b : b - lastBottom;
            values[slot] = Double.isNaN(lastTop) || grewBottom <= 0 ? 0 : Math.max(0, grewTop / grewBottom);
            lastTop = t;
            lastBottom = b;
        }
    }
}
