import ArgumentParser
import PushHostCore
import PushHostSystem

extension PushHostCommand {
    /// The names of the commands, in the order `--help` lists them.
    static var commandNames: [String] {
        configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
    }

    /// Refuses a first argument that is neither an option nor a command,
    /// which `run` (the default command) would take for a stray argument.
    ///
    /// - Throws: `UsageError`: `unknown command plugin (commands: run,
    ///   plugins, check, token, send, new; did you mean plugins?)`.
    static func checkCommandName(_ arguments: [String]) throws(UsageError) {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help",
            !configuration.subcommands.contains(where: { $0._commandName == first }) else { return }
        let guess = Spelling.suggestion(for: first, among: commandNames).map { "; did you mean \($0)?" } ?? ""
        throw UsageError("unknown command \(first) (commands: \(commandNames.joined(separator: ", "))\(guess))")
    }

    /// What went wrong in a parse or validation error, as one line: the
    /// parser's message, then where the help is (`unknown option '--bogus';
    /// see 'pushhost run --help'`). Nil when there is nothing to say.
    static func problem(in error: any Error) -> String? {
        let message = self.message(for: error)
        guard !message.isEmpty else { return nil }
        // A message of several lines (a list of allowed values) becomes one.
        let lines = message.split(separator: "\n").map { line in
            let text = line.drop { $0 == " " }
            return text.hasPrefix("- ") ? text.dropFirst(2) : text
        }
        let joined = lines.dropFirst().reduce(String(lines.first ?? "")) { $0 + ($0.hasSuffix(":") ? " " : ", ") + $1 }
        let text = joined.prefix(1).lowercased() + joined.dropFirst()
        let help = fullMessage(for: error).split(separator: "\n").lazy
            .map { $0.drop { $0 == " " } }
            .first { $0.hasPrefix("See '") && $0.hasSuffix(" for more information.") }
        guard let help else { return text }
        return text + "; see " + help.dropFirst("See ".count).dropLast(" for more information.".count)
    }
}
