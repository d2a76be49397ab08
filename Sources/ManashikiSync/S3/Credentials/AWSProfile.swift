import Foundation

/// A profile of the AWS shared files, as the AWS CLI and SDKs read them: the credentials file
/// (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`; sections `[name]`) and the config
/// file (`AWS_CONFIG_FILE`, else `~/.aws/config`; sections `[profile name]` and `[default]`), the
/// credentials file winning for a key both set. The profile is `AWS_PROFILE`, else
/// `AWS_DEFAULT_PROFILE`, else `default`.
struct AWSProfile: Sendable, Hashable {
    /// The profile's name.
    var name: String
    /// Its keys (lowercased), and nested ones as `s3.addressing_style`.
    var values: [String: String]
    /// The files it was found in.
    var files: [String]

    /// The value of `key`, when set and not empty.
    func value(_ key: String) -> String? { values[key].flatMap { $0.isEmpty ? nil : $0 } }

    /// `profile ci (/home/me/.aws/credentials)`, for messages.
    var label: String { "profile \(name) (\(files.joined(separator: ", ")))" }

    /// The profile the environment selects, and whether it was named (not the `default` fallback).
    static func selectedName(_ variables: [String: String]) -> (name: String, named: Bool) {
        for key in ["AWS_PROFILE", "AWS_DEFAULT_PROFILE"] {
            if let name = variables[key], !name.isEmpty { return (name, true) }
        }
        return ("default", false)
    }

    /// The credentials file and the config file the environment names.
    static func files(_ variables: [String: String]) -> (credentials: String, config: String) {
        let home = variables["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func expand(_ path: String) -> String { path.hasPrefix("~/") ? home + path.dropFirst() : path }
        let credentials = variables["AWS_SHARED_CREDENTIALS_FILE"].flatMap { $0.isEmpty ? nil : expand($0) } ?? home + "/.aws/credentials"
        let config = variables["AWS_CONFIG_FILE"].flatMap { $0.isEmpty ? nil : expand($0) } ?? home + "/.aws/config"
        return (credentials, config)
    }

    /// The profile `name` from the shared files, or nil when neither file has it (a file that
    /// is missing or unreadable counts as empty).
    static func load(_ name: String, environment: SyncEnvironment) -> AWSProfile? {
        let (credentialsFile, configFile) = files(environment.variables)
        var values: [String: String] = [:]
        var found: [String] = []
        if let text = try? environment.readFile(URL(fileURLWithPath: configFile)),
           let section = sections(text)[name == "default" ? "default" : "profile \(name)"] ?? (name == "default" ? sections(text)["profile default"] : nil) {
            values.merge(section) { _, new in new }
            found.append(configFile)
        }
        if let text = try? environment.readFile(URL(fileURLWithPath: credentialsFile)), let section = sections(text)[name] {
            values.merge(section) { _, new in new }
            found.append(credentialsFile)
        }
        return found.isEmpty ? nil : AWSProfile(name: name, values: values, files: found)
    }

    /// The sections of an INI file: `[name]` → its `key = value` lines (keys lowercased, values
    /// trimmed). Lines starting with `#` or `;` are comments, as is the rest of a line after
    /// ` #` or ` ;`. An indented `key = value` under a `key =` with no value is nested
    /// (`s3 =` / `  addressing_style = path` → `s3.addressing_style`).
    static func sections(_ text: String) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        var current: String?
        var parent: String?
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let indented = raw.first == " " || raw.first == "\t"
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard let end = line.firstIndex(of: "]") else { current = nil; continue }
                let name = line[line.index(after: line.startIndex)..<end].split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
                current = name
                parent = nil
                if result[name] == nil { result[name] = [:] }
                continue
            }
            for marker in [" #", "\t#", " ;", "\t;"] { if let r = line.range(of: marker) { line = String(line[..<r.lowerBound]) } }
            guard let section = current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if indented, let parent {
                result[section]?["\(parent).\(key)"] = value
            } else {
                result[section]?[key] = value
                parent = value.isEmpty ? key : nil
            }
        }
        return result
    }
}
