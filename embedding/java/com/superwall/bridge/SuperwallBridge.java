package com.superwall.bridge;

import java.nio.charset.StandardCharsets;

/**
 * A superwall-bridge in this process, through libsuperwall_bridge.so and a small JNI shim
 * (libsuperwall_bridge_jni.so): the JSON-RPC messages of the protocol, one whole message at a
 * time, as a Kotlin or Java wrapper on Android would hold it.
 *
 * <p>{@link Listener#onMessage} is called on a thread the bridge owns, one message at a time,
 * in order; it may call {@link #send}, but not {@link #close}.
 */
public final class SuperwallBridge {
    /** Receives each message the bridge sends. */
    public interface Listener {
        void onMessage(String message);
    }

    /**
     * The codes of superwall_bridge.h: what {@link #send} returns (TAKEN, ENDED, INVALID_ARGUMENT,
     * TOO_LARGE), and what superwall_bridge_receive adds (TIMED_OUT, BUSY) for hosts without a
     * callback, which this class, taking a listener, does not use.
     */
    public static final int TAKEN = 0, ENDED = 1, INVALID_ARGUMENT = 2, TOO_LARGE = 3, TIMED_OUT = 4, BUSY = 5;

    static {
        System.loadLibrary("superwall_bridge_jni");
    }

    private long handle;

    private SuperwallBridge(long handle) {
        this.handle = handle;
    }

    /**
     * Starts a bridge. {@code optionsJson}: the command line's serving flags as JSON
     * ({@code {"logLevel": "debug"}}), or null for the defaults.
     *
     * @throws IllegalArgumentException with the bridge's reason when it cannot start
     */
    public static SuperwallBridge open(String optionsJson, Listener listener) {
        return new SuperwallBridge(nativeOpen(optionsJson, listener));
    }

    /** Gives the bridge one whole JSON-RPC message; {@link #TAKEN} or another code. */
    public int send(String message) {
        if (handle == 0) return ENDED;
        return nativeSend(handle, message.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Ends the bridge's input, waits for it to finish, frees it, and returns its exit status
     * (0 after shutdown and exit).
     */
    public int close() {
        if (handle == 0) return -1;
        int status = nativeClose(handle);
        if (status != -1) handle = 0;
        return status;
    }

    /** Called by the shim on the bridge's thread. */
    static void deliver(Listener listener, byte[] message) {
        listener.onMessage(new String(message, StandardCharsets.UTF_8));
    }

    private static native long nativeOpen(String optionsJson, Listener listener);

    private static native int nativeSend(long handle, byte[] message);

    private static native int nativeClose(long handle);
}
