import com.superwall.bridge.SuperwallBridge;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The quick start through the library from Java: configure on the embedded demo, identify,
 * set an attribute, register a placement the user's audience does not match, run the feature.
 * Prints what the README's quick start prints, and exits 0 when every answer is as expected.
 */
public final class QuickStart {
    private static final LinkedBlockingQueue<String> messages = new LinkedBlockingQueue<>();
    private static SuperwallBridge bridge;
    private static int nextId = 1;

    public static void main(String[] arguments) throws Exception {
        Path data = Files.createTempDirectory("superwall-java-");
        bridge = SuperwallBridge.open(null, messages::add);
        call("initialize", "{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"java-quick-start\",\"version\":\"1.0\"}}");
        String configured = call("configure", "{\"apiKey\":\"pk_demo\",\"options\":{\"configSource\":{\"type\":\"embedded\"},"
                + "\"dataDirectory\":\"" + data + "\"}}");
        expect(configured, "\"configured\"");
        call("identify", "{\"userId\":\"runner_042\"}");
        call("setUserAttributes", "{\"attributes\":{\"plan\":\"free\"}}");
        String registered = call("register", "{\"placement\":\"workout_shared\",\"hasFeature\":true}");
        expect(registered, "\"noAudienceMatch\"");
        System.out.println("skipped: noAudienceMatch");
        if (registered.contains("\"featureGranted\":true")) System.out.println("run the feature");
        else throw new AssertionError("the feature was not granted: " + registered);
        call("shutdown", "{}");
        bridge.send("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
        int status = bridge.close();
        if (status != 0) throw new AssertionError("close returned " + status);
        try (var files = Files.walk(data)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    /** Sends a request and returns its answer, setting aside the notifications before it. */
    private static String call(String method, String params) throws InterruptedException {
        int id = nextId++;
        int taken = bridge.send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}");
        if (taken != SuperwallBridge.TAKEN) throw new AssertionError(method + ": send returned " + taken);
        while (true) {
            String message = messages.poll(30, TimeUnit.SECONDS);
            if (message == null) throw new AssertionError(method + ": no answer within 30 s");
            if (message.contains("\"id\":" + id + ",") && !message.contains("\"method\"")) {
                if (message.contains("\"error\":{")) throw new AssertionError(method + " failed: " + message);
                return message;
            }
        }
    }

    private static void expect(String message, String part) {
        if (!message.contains(part)) throw new AssertionError("expected " + part + " in " + message);
    }
}
