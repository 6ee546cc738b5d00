package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import org.p2psip.config.HostPort;

/**
 * One end of a connection that speaks frames by hand, as bytes: a tap that captures what a node
 * sends, or an attacker sending captured bytes again. Reads give up after 10 s.
 */
final class RawPeer implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;

    RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(10_000);
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** Connects to a node's overlay address. */
    static RawPeer connect(String address) throws IOException {
        var target = HostPort.parse(address).socketAddress();
        return new RawPeer(new Socket(target.getAddress(), target.getPort()));
    }

    void send(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** The next whole frame as it came, length prefix included. */
    byte[] readFrame() throws IOException {
        int length = in.readInt();
        byte[] frame = new byte[4 + length];
        frame[0] = (byte) (length >>> 24);
        frame[1] = (byte) (length >>> 16);
        frame[2] = (byte) (length >>> 8);
        frame[3] = (byte) length;
        in.readFully(frame, 4, length);
        return frame;
    }

    /** Decodes a whole frame as {@link #readFrame} returns it. */
    static StampedFrame decode(FrameCodec codec, byte[] frame) {
        return codec.decode(Unpooled.wrappedBuffer(frame, 4, frame.length - 4));
    }

    /** Expects the node to close the connection without sending anything first. */
    void assertClosedByTheNode() throws IOException {
        try {
            assertEquals(-1, in.read(), "the node must close this connection without a word");
        } catch (SocketException reset) {
            // closed with a reset: as good as an orderly close
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
