package org.p2psip.overlay;

/**
 * The counters' former place, kept only while dht-chord and dht-bryan import it; remove it once
 * they use {@link org.p2psip.dht.Counters}.
 *
 * @deprecated use {@link org.p2psip.dht.Counters}, in dht-api
 */
@Deprecated
public final class Counters extends org.p2psip.dht.Counters {
}
