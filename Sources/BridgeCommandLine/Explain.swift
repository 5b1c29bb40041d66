import ArgumentParser
import BridgeServer
import Dispatch
import Foundation
import JSONRPC
import Rules
import SuperwallCore

#if canImport(Glibc)
import Glibc
#endif

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Explain what register would do for a placement, and why.",
        discussion: """
            Loads the config as a fresh install would (the user's variants are drawn as on a first launch) and \
            prints each check of the presentation pipeline: every audience's rule with the value each part of it \
            took, the occurrence limit, the variant, the paywall and the outcome. Colour when stdout is a \
            terminal; --json prints debug/explainPlacement's answer instead. Exits 1 when the config cannot be used.
            """
    )

    @Option(name: .long, help: "The config file (a static_config response body).")
    var config: String

    @Option(name: .long, help: "A JSON file of user attributes, as setUserAttributes takes them.")
    var user: String?

    @Option(name: .long, help: "The placement's params, as a JSON object.")
    var params: String?

    @Flag(name: .long, help: "Print the answer as JSON, as debug/explainPlacement gives it.")
    var json = false

    @Argument(help: "The placement.")
    var placement: String

    func run() throws {
        let attributes =
            try user.map { path in try Self.object(try Self.read(path), what: "the user file \(path)") } ?? [:]
        let placementParams = try params.map { try Self.object(Data($0.utf8), what: "--params") } ?? [:]
        let outcome = Self.runBlocking { [config, placement] () async -> Result<PlacementExplanation, SuperwallError> in
            await Self.explain(placement, config: config, user: attributes, params: placementParams)
        }
        switch outcome {
        case .success(let explanation):
            if json {
                print(String(decoding: JSONWriter.encode(explanation.jsonValue), as: UTF8.self))
            } else {
                print(ExplanationText(colour: isatty(STDOUT_FILENO) == 1).render(explanation), terminator: "")
            }
        case .failure(let error):
            FileHandle.standardError.write(Data("\(config): \(error.rpcError.message)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// A throwaway install (a data directory removed afterwards, no events kept) with the
    /// config, the user's attributes, and the explanation.
    private static func explain(
        _ placement: String,
        config: String,
        user: [String: JSON],
        params: [String: JSON]
    ) async -> Result<PlacementExplanation, SuperwallError> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "superwall-explain-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let narrowed: Data
        let whole: Data
        do {
            whole = try LocalFile.read(config, atMost: FileConfigSource.defaultMaximumSize)
            narrowed = try Config.narrowedText(whole, toPlacement: placement)
        } catch let error as LocalFile.Failure {
            return .failure(.configUnavailable("cannot read \(config): \(error.reason)"))
        } catch let error as ConfigDecodingError {
            return .failure(.invalidConfig(error))
        } catch {
            return .failure(.configUnavailable("\(error)"))
        }
        let superwall = Superwall()
        let configured: Superwall.ConfigureOutcome
        do {
            configured = try await superwall.configure(
                apiKey: "pk_explain",
                options: Superwall.ConfigureOptions(
                    configSource: NarrowedConfig(text: narrowed, path: config),
                    dataDirectory: directory,
                    maxConfigRetryCount: 0,
                    shouldPreload: false,
                    eventTrackingBehavior: .none,
                    eventFlushInterval: .seconds(86_400)
                )
            )
        } catch {
            await superwall.closeStore()
            return .failure(error)
        }
        let result: Result<PlacementExplanation, SuperwallError>
        if let error = configured.error {
            result = .failure(error)
        } else {
            do {
                if !user.isEmpty { _ = try await superwall.setUserAttributes(user.mapValues { $0 }) }
                var explanation = try await superwall.explainPlacement(placement, params: params)
                // The narrowed config has no other placement to suggest: the file has.
                if !explanation.placementFound {
                    explanation.nearestPlacement = NearestName.among(Config.placementNames(in: whole), to: placement)
                }
                result = .success(explanation)
            } catch {
                result = .failure(error)
            }
        }
        // Closed before its directory goes: a store closed after it found its files gone, and
        // warned that it could not close cleanly.
        await superwall.closeStore()
        return result
    }

    private static func read(_ path: String) throws -> Data {
        do {
            return try LocalFile.read(path, atMost: FileConfigSource.defaultMaximumSize)
        } catch {
            throw ValidationError("Cannot open \(path): \(error.reason).")
        }
    }

    private static func object(_ data: Data, what: String) throws -> [String: JSON] {
        guard
            case .object(let members) = try? data.withUnsafeBytes({ bytes throws(JSONSyntaxError) in
                try JSONDecoding.decode(bytes)
            })
        else {
            throw ValidationError("\(what) must be a JSON object.")
        }
        return [String: JSON](members)
    }

    /// Runs `work` on the global pool and waits for it on this (non-pool) thread.
    private static func runBlocking<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value {
        let result = ResultBox<Value>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            result.value = await work()
            done.signal()
        }
        done.wait()
        return result.value!
    }

    private final class ResultBox<Value>: @unchecked Sendable {
        var value: Value?
    }
}

/// The config file cut down to the placement explained (`Config.narrowedText`).
private struct NarrowedConfig: ConfigSource {
    let text: Data
    let path: String
    func fetchConfig(_ request: ConfigRequest) async throws -> Data { text }
    var description: String { path }
}

/// An explanation as an indented tree, for people.
struct ExplanationText {
    let colour: Bool

    func render(_ explanation: PlacementExplanation) -> String {
        var lines: [String] = []
        let heading = "placement \(explanation.placement)"
        guard explanation.placementFound else {
            let suggestion = explanation.nearestPlacement.map { "; did you mean \($0)?" } ?? ""
            lines.append("\(bold(heading)): no campaign has this placement\(suggestion)")
            lines.append(outcomeLine(explanation))
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append(bold(heading))
        for (index, check) in explanation.audiences.enumerated() {
            lines.append(contentsOf: audienceLines(check, number: index + 1, of: explanation.audiences.count))
        }
        if let variant = explanation.variant {
            let paywall = variant.variant.paywallIdentifier.map { ", paywall \($0)" } ?? ""
            lines.append(
                "variant \(variant.variant.id) (\(variant.variant.kind.rawValue)\(paywall)) in experiment \(variant.experimentId), "
                    + (variant.confirmed ? "confirmed" : "not confirmed yet")
            )
        }
        if let paywall = explanation.paywall {
            let name = paywall.name.map { " \"\($0)\"" } ?? ""
            let gating = paywall.featureGating.map { ", \(camelCase($0.rawValue))" } ?? ""
            lines.append(
                paywall.found
                    ? "paywall \(paywall.identifier)\(name)\(gating)"
                    : red("paywall \(paywall.identifier): not in the config")
            )
        }
        lines.append(outcomeLine(explanation))
        return lines.joined(separator: "\n") + "\n"
    }

    private func outcomeLine(_ explanation: PlacementExplanation) -> String {
        let reason = explanation.reason.map { " (\($0))" } ?? ""
        let granted =
            explanation.featureGranted ? green("feature granted") : red("feature not granted without a purchase")
        return bold("outcome: \(explanation.outcome.rawValue)") + reason + ", " + granted
    }

    private func audienceLines(_ check: PlacementExplanation.AudienceCheck, number: Int, of count: Int) -> [String] {
        let state =
            !check.evaluated
            ? dim("not evaluated: an earlier audience matched") : check.matched ? green("matched") : red("no match")
        var lines = ["audience \(number) of \(count), experiment \(check.experimentId): \(state)"]
        guard check.evaluated else {
            if let expression = check.expression { lines.append(dim("  rule: \(expression)")) }
            return lines
        }
        switch check.rule {
        case .none:
            lines.append("  rule: none (everyone matches)")
        case .doesNotCompile(let message):
            lines.append("  rule: \(check.expression ?? "")")
            lines.append(red("    does not compile: \(message)"))
        case .evaluated(let explanation):
            lines.append("  rule: " + node(explanation.trace))
            lines.append(contentsOf: children(of: explanation.trace, indent: "    "))
        }
        if let occurrence = check.occurrence {
            let window =
                switch occurrence.limit.interval {
                case .minutes(let minutes): "per \(minutes) min"
                case .infinity: "ever"
                }
            let verdict = occurrence.allowsAnother ? green("allows another") : red("limit reached")
            lines.append(
                "  occurrence \(occurrence.limit.key): \(occurrence.storedCount) of at most \(occurrence.limit.maxCount) \(window), \(verdict)"
            )
        }
        return lines
    }

    private func children(of trace: ExpressionTrace, indent: String) -> [String] {
        var lines: [String] = []
        for (index, child) in trace.children.enumerated() {
            let last = index == trace.children.count - 1 && trace.omittedNodes == 0
            lines.append(indent + (last ? "└─ " : "├─ ") + node(child))
            lines.append(contentsOf: children(of: child, indent: indent + (last ? "   " : "│  ")))
        }
        if trace.omittedNodes > 0 {
            lines.append(indent + "└─ " + dim("… \(trace.omittedNodes) more nodes not shown"))
        }
        return lines
    }

    /// `text → value`, the value left out when it is the text (a literal).
    private func node(_ trace: ExpressionTrace) -> String {
        let repeated = trace.evaluations > 1 ? dim(" (last of \(trace.evaluations))") : ""
        switch trace.outcome {
        case .notEvaluated:
            return dim("\(trace.text)  (not evaluated)")
        case .error(let error):
            return "\(trace.text)  " + red("✗ \(error.message)")
        case .value(let value):
            // A variable's map is the user's or the device's: its size says enough here.
            let text =
                if case .map(let map) = value { "{\(map.count) entries}" } else { ExpressionTrace.text(of: value) }
            if text == trace.text { return trace.text }
            let shown =
                switch value {
                case .bool(true): green(text)
                case .bool(false): red(text)
                default: text
                }
            return "\(trace.text)  → \(shown)\(repeated)"
        }
    }

    private func paint(_ code: String, _ text: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    private func bold(_ text: String) -> String { paint("1", text) }
    private func dim(_ text: String) -> String { paint("2", text) }
    private func red(_ text: String) -> String { paint("31", text) }
    private func green(_ text: String) -> String { paint("32", text) }
}
