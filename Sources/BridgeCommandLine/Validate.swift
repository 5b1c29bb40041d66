import ArgumentParser
import Foundation
import JSONRPC
import SuperwallCore

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a config file and print every problem with its JSON path.",
        discussion: """
            Prints one line per problem, FILE:PATH: MESSAGE, and exits 1 when there is any: a file that is not JSON \
            (FILE:LINE:COLUMN: not JSON: MESSAGE), the error that stops \
            the config decoding, or each element SuperwallKit would drop, each audience rule that does not compile, \
            and each variant naming a paywall the config lacks. Warnings (FILE:PATH: warning: MESSAGE) do not fail \
            the file: an audience after one that always matches, a placement with no campaign, a paywall no \
            campaign reaches, a product no paywall uses. A valid config prints a summary and exits 0.
            """
    )

    @Argument(help: "The config file (a static_config response body).")
    var file: String

    @Option(
        help: """
            The device platform the config is read for: Android keeps Google Play products, as \
            Superwall-Android does; any other platform drops them, as SuperwallKit does.
            """
    )
    var platform = "iOS"

    func run() throws {
        let body: Data
        do {
            body = try LocalFile.read(file, atMost: FileConfigSource.defaultMaximumSize)
        } catch {
            print("\(file):$: cannot read the file: \(error.reason)")
            throw ExitCode(1)
        }
        let config: Config
        do {
            config = try Config.decode(from: body, for: ReferenceSDK(devicePlatform: platform))
        } catch {
            // For text that is not JSON at all, the parser's line and column say more than
            // the decoder's path; the text is parsed again only then.
            if let syntax = Self.syntaxError(in: Config.withoutByteOrderMark(body)) {
                print("\(file):\(syntax.line):\(syntax.column): not JSON: \(syntax.reason)")
            } else {
                print("\(file):\(error.path): \(error.reason)")
            }
            throw ExitCode(1)
        }
        let problems = config.problems
        for problem in problems { print("\(file):\(problem.path): \(problem.message)") }
        var warnings = config.warnings.map { "\(file):\($0.path): warning: \($0.message)" }
        if let duplicate = JSONDecoding.firstDuplicateKey(in: [UInt8](Config.withoutByteOrderMark(body))) {
            warnings.insert(
                "\(file):\(duplicate.line):\(duplicate.column): warning: \(duplicate.reason): of a key written twice the last is read",
                at: 0
            )
        }
        for warning in warnings { print(warning) }
        guard problems.isEmpty else { throw ExitCode(1) }
        let noted = warnings.isEmpty ? "" : ", \(warnings.count) warning\(warnings.count == 1 ? "" : "s")"
        print(
            "\(file): valid: build \(config.buildId), \(config.triggers.count) placements, \(config.paywalls.count) paywalls, \(config.products.count) products\(noted)"
        )
    }

    private static func syntaxError(in body: Data) -> JSONSyntaxError? {
        do throws(JSONSyntaxError) {
            _ = try JSONDecoding.decode([UInt8](body))
            return nil
        } catch {
            return error
        }
    }
}
