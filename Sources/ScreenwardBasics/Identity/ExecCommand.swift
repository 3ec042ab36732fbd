import Foundation

/// Just enough of the `Exec=` quoting rules to find the program an entry runs and
/// the arguments it adds.
package enum ExecCommand {
    /// The program `exec` runs, skipping an `env VAR=value …` prefix.
    static func program(of exec: String) -> String? {
        command(of: exec).first
    }

    /// The arguments `exec` gives its program, without field codes (`%U`,
    /// `--file=%f`): what tells `mousepad --preferences` from `mousepad %U`.
    static func launchArguments(of exec: String) -> [String] {
        command(of: exec).dropFirst().filter { !containsFieldCode($0) }
    }

    /// The program and its arguments, after an `env VAR=value …` prefix.
    private static func command(of exec: String) -> ArraySlice<String> {
        var arguments = self.arguments(exec)[...]
        if let first = arguments.first, fileName(first) == "env" {
            arguments = arguments.dropFirst()
            while let argument = arguments.first, argument.contains("=") || argument.hasPrefix("-") {
                arguments = arguments.dropFirst()
            }
        }
        return arguments
    }

    /// Whether an argument holds one of the spec's field codes, which the launcher
    /// replaces with files, URLs, the icon or the name.
    private static func containsFieldCode(_ argument: String) -> Bool {
        var characters = argument.makeIterator()
        while let character = characters.next() {
            guard character == "%", let code = characters.next() else { continue }
            if "fFuUdDnNickvm".contains(code) { return true }
        }
        return false
    }

    /// Splits a command line into arguments, with double quotes (inside which `\`
    /// escapes the next character), single quotes and backslashes as a shell reads
    /// them. Stops after a few arguments: only the first ones are ever needed.
    static func arguments(_ command: String, limit: Int = 32) -> [String] {
        var arguments: [String] = []
        var current = ""
        var inArgument = false
        var quote: Character?
        var characters = command.makeIterator()
        while let character = characters.next() {
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"" && character == "\\", let next = characters.next() {
                    current.append(next)
                } else {
                    current.append(character)
                }
            } else if character == " " || character == "\t" || character == "\n" {
                if inArgument {
                    arguments.append(current)
                    if arguments.count == limit { return arguments }
                    current = ""
                    inArgument = false
                }
            } else {
                inArgument = true
                if character == "\"" || character == "'" {
                    quote = character
                } else if character == "\\", let next = characters.next() {
                    current.append(next)
                } else {
                    current.append(character)
                }
            }
        }
        if inArgument { arguments.append(current) }
        return arguments
    }

    /// The canonical path of `program`: absolute paths as they are, bare names
    /// through the search path, then symlinks resolved (`/usr/bin/firefox` is often a
    /// link to where the binary really is, which is what /proc/PID/exe shows).
    static func locate(_ program: String, searchPath: [String]) -> String? {
        let fileManager = FileManager.default
        let path: String
        if program.hasPrefix("/") {
            path = program
        } else if program.contains("/") || program.isEmpty {
            return nil  // Relative to nothing we know.
        } else if let found = searchPath.lazy.map({ $0 + "/" + program }).first(where: fileManager.isExecutableFile) {
            path = found
        } else {
            return nil
        }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    package static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Whether a program runs other programs, so its path says nothing about which
    /// application a process is.
    static func isSharedRuntime(_ program: String) -> Bool {
        let name = fileName(program)
        let exact: Set<String> = [
            "sh", "bash", "dash", "zsh", "ksh", "fish", "env", "perl", "ruby", "node", "nodejs",
            "java", "mono", "dotnet", "gjs", "lua", "php",
        ]
        return exact.contains(name)
            || ["python", "wine", "electron"].contains(where: { name.hasPrefix($0) })
    }
}
