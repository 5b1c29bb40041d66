import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct LifecycleTests {
    @Test func requestsBeforeInitializeAreRefusedWithMinus32002() async {
        let handler = TestHandler()
        let server = InProcessServer(handler: handler)
        server.client.request(1, "$/ping")
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32002)
        #expect(errorKind(reply) == "notInitialized")
        server.client.notify("early")
        await server.initialize()
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        #expect(handler.notifications.get().isEmpty)
    }

    @Test func requestsPipelinedBehindInitializeWaitForIt() async {
        let handler = TestHandler()
        let server = InProcessServer(handler: handler)
        server.client.request(0, "initialize", ["delayMs": 200])
        server.client.request(1, "$/ping")
        server.client.notify("after-initialize")
        let first = await server.client.next()
        let second = await server.client.next()
        #expect(first?["id"] == 0)
        #expect(second?["id"] == 1)
        #expect(second?["result"] == [:])
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        #expect(handler.notifications.get() == ["after-initialize"])
    }

    @Test func aFailedInitializeLeavesTheServerUninitialized() async {
        let handler = TestHandler()
        handler.failInitialize.set(true)
        let server = InProcessServer(handler: handler)
        #expect(errorCode(await server.initialize()) == -32602)
        server.client.request(1, "$/ping")
        #expect(errorCode(await server.client.next()) == -32002)
        handler.failInitialize.set(false)
        #expect(await server.initialize()?["result"] == ["server": "test"])
    }

    @Test func aSecondInitializeIsRefused() async {
        let server = await initializedServer()
        let reply = await server.initialize()
        #expect(errorCode(reply) == -32600)
        #expect(errorKind(reply) == "alreadyInitialized")
    }

    @Test func shutdownRunsTheHandlerThenRefusesRequestsAndExitEndsWithZero() async {
        let handler = TestHandler()
        let server = await initializedServer(handler)
        server.client.request(1, "shutdown")
        #expect(await server.client.next()?["result"] == [:])
        #expect(handler.shutdownCalls.get() == 1)
        server.client.request(2, "$/ping")
        #expect(errorKind(await server.client.next()) == "shutDown")
        server.client.notify("exit")
        #expect(await server.waitForExit() == 0)
    }

    /// Messages take effect in the order received: `exit` written right behind `shutdown`
    /// exits 0 even while `shutdown` is still flushing.
    @Test func exitRightBehindShutdownExitsZeroBeforeShutdownIsAnswered() async {
        let handler = TestHandler()
        handler.shutdownDelay.set(.milliseconds(300))
        let server = await initializedServer(handler)
        server.client.request(1, "shutdown")
        server.client.notify("exit")
        #expect(await server.client.next()?["result"] == [:])
        #expect(await server.waitForExit() == 0)
    }

    @Test func shutdownAnswersOnlyAfterEveryRequestReceivedBeforeIt() async {
        let server = await initializedServer()
        server.client.request(1, "slow", ["ms": 300])
        server.client.request(2, "shutdown")
        server.client.notify("exit")
        let first = await server.client.next()
        let second = await server.client.next()
        #expect(first?["id"] == 1)
        #expect(first?["result"] == "done")
        #expect(second?["id"] == 2)
        #expect(second?["result"] == [:])
        #expect(await server.waitForExit() == 0)
    }

    @Test func shutdownAnswersRequestsStillRunningAfterTheDrainTimeoutAsCancelled() async {
        var options = Connection.Options()
        options.drainTimeout = .milliseconds(200)
        let handler = TestHandler()
        let server = await initializedServer(handler, options: options)
        server.client.request(1, "wait")
        server.client.request(2, "shutdown")
        let first = await server.client.next()
        #expect(first?["id"] == 1)
        #expect(errorCode(first) == -32800)
        #expect(await server.client.next()?["id"] == 2)
        // Its work was cancelled too; the handler notices a moment after the answer.
        let deadline = ContinuousClock.now + expectationTimeout
        while handler.cancelledRequests.get() == 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(handler.cancelledRequests.get() == 1)
        server.client.notify("exit")
        #expect(await server.waitForExit() == 0)
    }

    @Test func exitWithoutShutdownEndsWithOne() async {
        let server = await initializedServer()
        server.client.notify("exit")
        #expect(await server.waitForExit() == 1)
    }

    @Test func endOfInputAnswersALastLineWithoutNewline() async {
        let server = await initializedServer()
        server.client.writeRaw(#"{"jsonrpc":"2.0","id":"last","method":"$/ping"}"#)
        server.client.closeWriting()
        #expect(await server.client.next()?["id"] == "last")
        #expect(await server.waitForExit() == 0)
    }

    @Test func endOfInputLetsInFlightRequestsFinish() async {
        let server = await initializedServer()
        server.client.request(1, "slow", ["ms": 300])
        server.client.closeWriting()
        #expect(await server.client.next()?["result"] == "done")
        #expect(await server.waitForExit() == 0)
    }

    @Test func endOfInputStopsWaitingForRequestsThatOutliveTheDrainTimeout() async {
        var options = Connection.Options()
        options.drainTimeout = .milliseconds(200)
        let server = await initializedServer(options: options)
        server.client.request(1, "wait")
        server.client.closeWriting()
        // Every request gets exactly one answer, to the end.
        let reply = await server.client.next()
        #expect(reply?["id"] == 1)
        #expect(errorCode(reply) == -32800)
        #expect(await server.waitForExit() == 0)
    }
}
