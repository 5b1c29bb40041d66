import ArgumentParser
import SuperwallCore

struct DemoConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-config",
        abstract: "Print the embedded demo app's config (what configSource {type: \"embedded\"} loads) as JSON.",
        discussion:
            "Its placements, audiences, paywalls and products are described in protocol/README.md, \"The embedded demo app\"."
    )

    func run() throws {
        print(EmbeddedConfigSource.json)
    }
}
