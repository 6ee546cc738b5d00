package org.p2psip.registrar;

import org.p2psip.config.Config;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Updater;

/**
 * The {@link Registrar} rules as the node storing an AOR applies them to a REGISTER another node
 * received ({@link RegisterCodec}): the set to store when the rules say Store, nothing otherwise.
 * The node that received the REGISTER reads the record it gets back and answers the client
 * itself ({@link RegistrarService}). Thread-safe (immutable).
 */
public final class RegistrarUpdater implements Updater {

    private final Registrar registrar;

    public RegistrarUpdater(Config config) {
        this.registrar = new Registrar(config);
    }

    @Override
    public BindingSet apply(BindingSet current, byte[] change, long now) {
        return registrar.apply(RegisterCodec.decode(change), current, now) instanceof Outcome.Store store
                ? store.next() : null;
    }
}
