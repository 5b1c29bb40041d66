import BridgeCommandLine

BridgeCommand.main(arguments: CommandLine.arguments)
