/// The options of one program, parsed and documented from the same declarations. Shared by
/// `manashiki-sync`, `manashiki-registry` and `manashiki-bench`.
///
/// Grammar: options anywhere, as `--name value` or `--name=value`; a switch refuses a value
/// (`--json=false` must not quietly mean `--json`); a value may not start with `--` (except
/// `-`). Arguments that are not options go to the caller's `positional` handler.
package struct OptionTable<State>: Sendable {
    /// The options, in help order.
    package let options: [CommandLineOption<State>]

    /// A table of `options`.
    package init(_ options: [CommandLineOption<State>]) {
        self.options = options
        var seen = Set<String>()
        for name in options.flatMap(\.names) { precondition(seen.insert(name).inserted, "option \(name) declared twice") }
    }

    /// The option called `name`, if any.
    package func option(named name: String) -> CommandLineOption<State>? {
        options.first { $0.names.contains(name) }
    }

    /// An option given on a command line, by the name it was typed with.
    package struct Given {
        /// The name as typed.
        package let name: String
        /// Its declaration.
        package let option: CommandLineOption<State>
    }

    /// Parses `arguments` into `state`.
    ///
    /// - Parameters:
    ///   - refuse: checked first for every `-…` name; an error refuses the option whatever follows.
    ///   - unknown: the error for an option that is not in the table.
    ///   - positional: handles an argument that is not an option; it may consume more of `rest`.
    ///   - stop: parsing ends early when it holds after an option (`--version`).
    /// - Returns: the options given, in order.
    /// - Throws: `UsageError` from the grammar, an option's `apply` or a handler.
    @discardableResult
    package func parse(_ arguments: [String], into state: inout State,
                       refuse: (String) -> UsageError? = { _ in nil },
                       unknown: (String) -> UsageError = { UsageError("unknown option \($0)") },
                       positional: (String, inout State, inout ArraySlice<String>) throws(UsageError) -> Void,
                       stop: (State) -> Bool = { _ in false }) throws(UsageError) -> [Given] {
        var given: [Given] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            if let refusal = refuse(name) { throw refusal }
            guard let option = option(named: name) else {
                if argument.hasPrefix("-") && argument != "-" { throw unknown(name) }
                try positional(argument, &state, &rest)
                continue
            }
            let value: String
            if option.isSwitch {
                if inline != nil { throw UsageError("\(name) takes no value (leave out \"=…\")") }
                value = ""
            } else if let inline {
                value = inline
            } else {
                guard let next = rest.first, !next.hasPrefix("--") || next == "-" else { throw UsageError("\(name) needs a value") }
                rest = rest.dropFirst()
                value = next
            }
            do { try option.apply(&state, value) } catch {
                throw error as? UsageError ?? UsageError("\(name): \(error)")
            }
            given.append(Given(name: name, option: option))
            if stop(state) { break }
        }
        return given
    }

    /// The first option in `given` that `command` does not accept, as an error naming the
    /// commands that do.
    package func scopeError(_ given: [Given], command: String) -> UsageError? {
        guard let wrong = given.first(where: { !$0.option.commands.isEmpty && !$0.option.commands.contains(command) }) else { return nil }
        let names = wrong.option.commands.map { "`\($0)`" }
        let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
        return UsageError("\(wrong.name) is an option of \(list), not of `\(command)`")
    }

    /// Help lines for the options named in `entries` (each with its own text, or the option's),
    /// labels padded to `labelWidth` after a two-space indent; continuation lines line up.
    package func help(_ entries: [(name: String, text: String?)], labelWidth: Int, shortColumn: Bool = false) -> String {
        var lines: [String] = []
        for (name, text) in entries {
            guard let option = option(named: name) else { preconditionFailure("help names an undeclared option \(name)") }
            let label = option.label(shortColumn: shortColumn)
            let body = (text ?? option.help).split(separator: "\n", omittingEmptySubsequences: false)
            let pad = label.count < labelWidth ? String(repeating: " ", count: labelWidth - label.count) : " "
            lines.append("  " + label + pad + body[0])
            let indent = String(repeating: " ", count: 2 + max(labelWidth, label.count + 1))
            for more in body.dropFirst() { lines.append(indent + more) }
        }
        return lines.joined(separator: "\n")
    }

    /// Help lines for `names`, each with the option's own text.
    package func help(_ names: [String], labelWidth: Int, shortColumn: Bool = false) -> String {
        help(names.map { ($0, nil) }, labelWidth: labelWidth, shortColumn: shortColumn)
    }
}
