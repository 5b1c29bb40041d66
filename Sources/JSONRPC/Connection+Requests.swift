import Dispatch
import Executors
import JSONText
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Requests from the client: starting, answering and cancelling them.
extension Connection {
    /// Decides, in arrival order on the reader thread, what the lifecycle allows; the work
    /// itself runs in a task.
    func dispatch(_ request: IncomingRequest, responder: Responder) {
        enum Admission {
            case refuse(RPCError)
            case run(gate: OneShot<Bool>?)
            case initialize(OneShot<Bool>)
            /// `earlier`: the requests received before it, which it waits for.
            case shutdown(gate: OneShot<Bool>?, earlier: Set<UInt64>)
        }
        let admission = state.withLock { state -> Admission in
            if state.cancelsLateRequests { return .refuse(.requestCancelled) }
            switch (request.method, state.lifecycle) {
            case ("initialize", .awaitingInitialize):
                let gate = OneShot<Bool>()
                state.lifecycle = .initializing(gate)
                return .initialize(gate)
            case ("initialize", .shutDown), (_, .shutDown):
                return .refuse(.invalidRequest("the server is shutting down.", kind: "shutDown"))
            case ("initialize", _):
                return .refuse(.invalidRequest("initialize was already received.", kind: "alreadyInitialized"))
            case (_, .awaitingInitialize):
                return .refuse(.notInitialized)
            case ("shutdown", .initializing(let gate)):
                state.beginShutdown()
                return .shutdown(gate: gate, earlier: state.unanswered)
            case ("shutdown", .running):
                state.beginShutdown()
                return .shutdown(gate: nil, earlier: state.unanswered)
            case (_, .initializing(let gate)):
                return .run(gate: gate)
            case (_, .running):
                return .run(gate: nil)
            }
        }
        switch admission {
        case .refuse(let error):
            responder.respond(id: request.id, outcome: .failure(error), on: self)
        case .initialize(let gate):
            // The gate opens only once the reply is on its way, so that requests queued
            // behind initialize are answered after it.
            let opened: @Sendable (Bool) -> Void = { [self] succeeded in
                state.withLock { $0.lifecycle = succeeded ? .running : .awaitingInitialize }
                gate.resolve(succeeded)
            }
            start(request, responder: responder, whenAnswered: opened) { [self] in
                try await handler.initialize(request, connection: self)
            }
        case .shutdown(let gate, let earlier):
            // Nothing may wait on the client past shutdown: its pending requests resolve now,
            // which also lets the work waiting on them finish before the handler flushes.
            failPendingRequests(with: .shutDown)
            start(request, responder: responder) { [self] in
                if let gate, await !gate.value { throw RPCError.notInitialized }
                await answerAll(earlier, within: options.drainTimeout)
                await handler.shutdown(connection: self)
                return [:]
            }
        case .run(let gate):
            start(request, responder: responder) { [self] in
                if let gate, await !gate.value { throw RPCError.notInitialized }
                return try await handler.handle(request, connection: self)
            }
        }
    }

    /// Runs `work` as the answer to `request`, tracked so `$/cancelRequest` can reach it.
    private func start(
        _ request: IncomingRequest,
        responder: Responder,
        whenAnswered: (@Sendable (_ succeeded: Bool) -> Void)? = nil,
        work: @escaping @Sendable () async throws -> JSONValue
    ) {
        let token = state.withLock { state -> UInt64 in
            state.nextToken += 1
            state.inFlight[state.nextToken] = InFlight(
                id: request.id,
                task: nil,
                responder: responder,
                whenAnswered: whenAnswered
            )
            return state.nextToken
        }
        // The handler starts on the reader thread and goes on there between reads (the
        // executor preference, which the SDK's actors follow), so a request answered without
        // waiting costs no thread hop; one that waits frees the reader at once.
        let task = Task.immediate(executorPreference: executor) { [self] in
            let outcome: Result<JSONValue, RPCError>
            do {
                outcome = .success(try await work())
            } catch let error as RPCError {
                outcome = .failure(error)
            } catch is CancellationError {
                outcome = .failure(.requestCancelled)
            } catch {
                outcome = .failure(.internalError(describing: error))
            }
            complete(token: token, outcome: outcome)
        }
        let stillRunning = state.withLock { state -> Bool in
            guard state.inFlight[token] != nil else { return false }
            state.inFlight[token]?.task = task
            return true
        }
        if !stillRunning { task.cancel() }
    }

    /// Answers a request once: whichever of completion and cancellation comes first wins.
    private func complete(token: UInt64, outcome: Result<JSONValue, RPCError>) {
        answer(token, with: outcome)
        signalIfDrained()
    }

    /// Answers a request once, whoever gets there first, and hands the answer to the writer;
    /// until it is there the request still counts as unanswered.
    @discardableResult
    private func answer(_ token: UInt64, with outcome: Result<JSONValue, RPCError>) -> InFlight? {
        guard let entry = state.withLock({ $0.takeForAnswer(token) }) else { return nil }
        entry.answer(with: outcome, on: self)
        for gate in state.withLock({ $0.answered(token) }) { gate.resolve(()) }
        return entry
    }

    func cancelIncoming(_ id: RequestID) {
        let tokens = state.withLock { state in state.inFlight.filter { $0.value.id == id }.map(\.key) }
        guard !tokens.isEmpty else {
            logger.debug("$/cancelRequest for \(id), which is not running")
            return
        }
        cancel(tokens)
    }

    /// Answers these requests `-32800` now and cancels their work.
    func cancel(_ tokens: some Sequence<UInt64>) {
        for token in tokens {
            answer(token, with: .failure(.requestCancelled))?.task?.cancel()
        }
        signalIfDrained()
    }

    /// Waits until every one of `tokens` has been answered, at most `limit`; then answers
    /// the ones still running `-32800`, so each request still gets exactly one answer.
    private func answerAll(_ tokens: Set<UInt64>, within limit: Duration) async {
        let watch = state.withLock { state -> AnswerWatch? in
            let remaining = tokens.intersection(state.unanswered)
            guard !remaining.isEmpty else { return nil }
            let watch = AnswerWatch(remaining: remaining)
            state.answerWatches.append(watch)
            return watch
        }
        guard let watch else { return }
        let timer = DeadlineTimer(after: limit) { watch.gate.resolve(()) }
        await watch.gate.value
        timer.cancel()
        let late = state.withLock { state -> [UInt64] in
            state.answerWatches.removeAll { $0.gate === watch.gate }
            return tokens.filter { state.inFlight[$0] != nil }
        }
        guard !late.isEmpty else { return }
        logger.warning("\(late.count) request(s) still running \(limit) after shutdown; answering them as cancelled")
        cancel(late)
    }

    private func signalIfDrained() {
        let drainedNow = state.withLock { $0.inputClosed && $0.inFlight.isEmpty && $0.answering.isEmpty }
        if drainedNow { drained.signal() }
    }
}
