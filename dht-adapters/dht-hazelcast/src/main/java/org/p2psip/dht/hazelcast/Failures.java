package org.p2psip.dht.hazelcast;

import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.HazelcastOverloadException;
import com.hazelcast.core.OperationTimeoutException;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.MalformedBindingException;

/** Maps what Hazelcast fails with to the Dht contract's reasons, in one place. Stateless; thread-safe. */
final class Failures {

    private Failures() {
    }

    static DhtException translate(String what, Throwable failure) {
        Throwable cause = DhtException.unwrap(failure);
        if (cause instanceof DhtException dht) {
            return dht;
        }
        DhtException.Reason reason;
        if (cause instanceof HazelcastInstanceNotActiveException) {
            reason = DhtException.Reason.CLOSED;
        } else if (cause instanceof OperationTimeoutException) {
            reason = DhtException.Reason.TIMEOUT;
        } else if (cause instanceof HazelcastOverloadException) {
            reason = DhtException.Reason.OVERLOADED;
        } else if (cause instanceof MalformedBindingException || cause instanceof IllegalArgumentException) {
            reason = DhtException.Reason.STORAGE; // a value this node cannot read or write
        } else {
            reason = DhtException.Reason.UNREACHABLE; // member left, partition migrating, connection lost
        }
        return new DhtException(reason, what + ": " + cause, cause);
    }
}
