/// One command-line option, declared once: how it is parsed and what `--help` says about it.
/// A command's `OptionTable` is a list of these; parsing and the help text both read it.
package struct CommandLineOption<State>: Sendable {
    /// Its names as typed: short ones (`-m`) first, then long ones (`--manifest`, aliases after).
    package let names: [String]
    /// The value's placeholder in help (`PATH`); nil for a switch, which takes no value.
    package let placeholder: String?
    /// The help text; lines after the first are continuation lines.
    package let help: String
    /// The commands that accept it, in the order help names them; empty: every command.
    package let commands: [String]
    /// What it does to the parse state, given its value ("" for a switch). It throws
    /// `UsageError` for a bad value.
    package let apply: @Sendable (inout State, String) throws -> Void

    /// Declares an option.
    package init(_ names: [String], _ placeholder: String? = nil, help: String, commands: [String] = [],
                 apply: @escaping @Sendable (inout State, String) throws -> Void) {
        precondition(!names.isEmpty, "an option needs a name")
        self.names = names
        self.placeholder = placeholder
        self.help = help
        self.commands = commands
        self.apply = apply
    }

    /// Whether it is a switch (no value).
    package var isSwitch: Bool { placeholder == nil }

    /// The help label: `-m, --manifest PATH` (short names, then the first long name).
    package func label(shortColumn: Bool) -> String {
        let shorts = names.filter { !$0.hasPrefix("--") }
        let long = names.first { $0.hasPrefix("--") } ?? names[0]
        let value = placeholder.map { " \($0)" } ?? ""
        let prefix = shorts.isEmpty ? (shortColumn ? "    " : "") : shorts.joined(separator: ", ") + ", "
        return prefix + long + value
    }
}
