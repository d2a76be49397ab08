import Foundation
import ManashikiSync
import ManashikiCore

/// The `manashiki-sync` program: parse, dispatch, map signals to exit codes.
///
/// ```swift
/// // main.swift
/// exit(await CommandLineTool(console: .standard()).run(Array(CommandLine.arguments.dropFirst())).rawValue)
/// ```
public struct CommandLineTool: Sendable {
    /// Where output goes.
    package let console: Console
    /// Whether SIGINT/SIGTERM handlers are installed (off in in-process tests).
    package let handlesSignals: Bool

    /// Creates the tool.
    public init(console: Console, handlesSignals: Bool = true) {
        self.console = console
        self.handlesSignals = handlesSignals
    }

    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    public func run(_ arguments: [String]) async -> ExitCode {
        // Hidden: the TUF conformance suite's client protocol (.ci/tuf-client), not a user command.
        if arguments.first == TUFConformanceClient.commandName {
            return await TUFConformanceClient(console: console).run(Array(arguments.dropFirst()))
        }
        let command: Command
        do { command = try CommandLineParser.parse(arguments) } catch {
            console.error(error.message)
            let help = error.command.map { "manashiki-sync \($0) --help" } ?? "manashiki-sync --help"
            console.err.write("Run `\(help)` for usage.\n")
            if arguments.contains("--json") {
                // A consumer of --json reads exactly one summary on every path, a usage error too.
                JSONEventWriter(console: console).stopped(
                    command: error.command, outcome: "usage-error", exit: .usage,
                    error: ErrorFields(message: error.message, hint: "run `\(help)`", kind: "terminal"))
            }
            return .usage
        }
        switch command {
        case .help(let topic):
            console.out.write(HelpText.text(for: topic) + "\n")
            return .success
        case .version:
            console.line(HelpText.version)
            return .success
        default:
            break
        }
        guard handlesSignals else { return await execute(command) }
        let task = Task { await execute(command) }
        let trap = SignalTrap(exitAfter: Self.signalGrace, exitMessage: Self.signalGraceMessage) { _ in task.cancel() }
        let code = await task.value
        trap.cancel()
        if code == .interrupted { return trap.exitCode ?? .interrupted }
        return code
    }

    /// How long a run may take to wind down after SIGINT or SIGTERM (cancelling transfers,
    /// keeping partials, writing the state and the record) before the process exits anyway.
    static let signalGrace: Duration = .seconds(30)
    /// What it says then.
    static let signalGraceMessage = "manashiki-sync: error: still running 30 s after the signal; exiting now (the store's lock goes with the process; kept partial downloads stay for the next run)"

    /// Runs a parsed command, the library's remedies worded as this command's (`RemedyWording.commandLine`).
    package func execute(_ command: Command) async -> ExitCode {
        await RemedyWording.$current.withValue(.commandLine) { await dispatch(command) }
    }

    private func dispatch(_ command: Command) async -> ExitCode {
        switch command {
        case .plan(let global):
            return await PlanCommand(context: CommandContext(console: console, global: global)).run()
        case .sync(let global, let options):
            return await SyncCommand(context: CommandContext(console: console, global: global), options: options).run()
        case .verify(let global, let options):
            return await VerifyCommand(context: CommandContext(console: console, global: global), options: options).run()
        case .status(let global):
            return await StatusCommand(context: CommandContext(console: console, global: global)).run()
        case .export(let global, let options):
            return await ExportCommand(context: CommandContext(console: console, global: global), options: options).run()
        case .lock(let global, let options):
            return await LockCommand(context: CommandContext(console: console, global: global), options: options).run()
        case .ensure(let global, let ids):
            return await EnsureCommand(context: CommandContext(console: console, global: global), modelIds: ids).run()
        case .help, .version:
            return .success
        }
    }
}
