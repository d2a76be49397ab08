import Foundation
import ManashikiCore
import Testing

/// The grammar shared by `manashiki-sync`, `manashiki-registry` and `manashiki-bench`.
@Suite("OptionTable")
struct OptionTableTests {
    struct State: Sendable, Equatable {
        var name: String?
        var count = 0
        var flag = false
        var done = false
        var positional: [String] = []
    }

    struct NotAnOptionError: Error, CustomStringConvertible { var description: String { "not a number" } }

    typealias Option = CommandLineOption<State>

    static let table = OptionTable<State>([
        Option(["-n", "--name", "--alias"], "NAME", help: "a name\nsecond line") { s, v in s.name = v },
        Option(["--count"], "N", help: "a count", commands: ["run"]) { s, v in
            guard let n = Int(v) else { throw UsageError("--count needs a number, not \(v)") }
            s.count = n
        },
        Option(["--strict"], "N", help: "fails with a foreign error on \"fail\"", commands: ["run", "check", "list"]) { _, v in
            if v == "fail" { throw NotAnOptionError() }
        },
        Option(["--flag"], help: "a switch", commands: ["check"]) { s, _ in s.flag = true },
        Option(["--done"], help: "stops parsing") { s, _ in s.done = true },
    ])

    func parse(_ arguments: [String], refuse: (String) -> UsageError? = { _ in nil }) throws(UsageError) -> (State, [String]) {
        var state = State()
        let given = try Self.table.parse(arguments, into: &state, refuse: refuse,
            positional: { argument, state, _ throws(UsageError) in state.positional.append(argument) },
            stop: { $0.done })
        return (state, given.map(\.name))
    }

    @Test("`--name value`, `--name=value`, short names and aliases; other words are positional; the names given come back as typed")
    func forms() throws {
        let (state, given) = try parse(["a", "--name", "x", "-", "--count=3", "b", "--alias=y", "-n", "z", "--flag"])
        #expect(state.name == "z")
        #expect(state.count == 3)
        #expect(state.flag)
        #expect(state.positional == ["a", "-", "b"])
        #expect(given == ["--name", "--count", "--alias", "-n", "--flag"])
        #expect(try parse(["--name", "-"]).0.name == "-")
        #expect(try parse(["--name=--odd"]).0.name == "--odd")
    }

    @Test("grammar errors say what is wrong", arguments: [
        (["--flag=yes"], "--flag takes no value (leave out \"=…\")"),
        (["--name"], "--name needs a value"),
        (["--name", "--flag"], "--name needs a value"),
        (["--bogus"], "unknown option --bogus"),
        (["-x"], "unknown option -x"),
        (["--bogus=1"], "unknown option --bogus"),
        (["--count", "many"], "--count needs a number, not many"),
        (["--strict", "fail"], "--strict: not a number"),
    ])
    func refusals(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try parse(arguments) }
    }

    @Test("the refuse hook sees every name first, whatever follows")
    func refuseHook() {
        let refuse: (String) -> UsageError? = { $0 == "--api-key" || $0 == "--name" ? UsageError("no \($0)") : nil }
        #expect(throws: UsageError("no --api-key")) { try parse(["--api-key=secret"], refuse: refuse) }
        #expect(throws: UsageError("no --name")) { try parse(["--name", "x"], refuse: refuse) }
    }

    @Test("stop ends parsing after the option that made it hold")
    func stop() throws {
        let (state, given) = try parse(["--done", "--bogus", "--name"])
        #expect(state.done)
        #expect(given == ["--done"])
    }

    @Test("scopeError names the commands that accept the option", arguments: [
        (["--count", "1"], "check", "--count is an option of `run`, not of `check`"),
        (["--flag"], "run", "--flag is an option of `check`, not of `run`"),
        (["--name", "x", "--flag"], "check", nil),
        (["--done"], "anything", nil),
    ] as [([String], String, String?)])
    func scope(arguments: [String], command: String, message: String?) throws {
        var state = State()
        let given = try Self.table.parse(arguments, into: &state, positional: { _, _, _ throws(UsageError) in })
        #expect(Self.table.scopeError(given, command: command) == message.map { UsageError($0) })
    }

    @Test("scopeError lists three commands as `a`, `b` and `c`")
    func scopeList() throws {
        var state = State()
        let given = try Self.table.parse(["--strict=ok"], into: &state, positional: { _, _, _ throws(UsageError) in })
        #expect(Self.table.scopeError(given, command: "other") == UsageError("--strict is an option of `run`, `check` and `list`, not of `other`"))
        #expect(Self.table.scopeError(given, command: "list") == nil)
    }

    @Test("help pads labels to the width, lines continuation up, and can keep a column for short names")
    func help() {
        #expect(Self.table.help(["--name", "--flag"], labelWidth: 16) == """
              -n, --name NAME a name
                              second line
              --flag          a switch
            """)
        #expect(Self.table.help([("--count", "own text"), ("--done", nil)], labelWidth: 8, shortColumn: true) == """
                  --count N own text
                  --done stops parsing
            """)
    }
}
