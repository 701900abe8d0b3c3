import ArgumentParser

extension PushHostCommand {
    /// The command `arguments` name, parsed.
    ///
    /// `run` (named, or the default when the first argument is an option)
    /// is parsed by `RunCommand` alone first: the root's parse builds
    /// `run`'s arguments by reflection three times more (to look for
    /// passthrough arguments and completion requests), which took two
    /// thirds of a run's start. Whatever that parse does not accept (help,
    /// `--version`, a mistake) is parsed again from the root, so that
    /// errors, help and the root's own options read as they always do.
    static func command(from arguments: [String]) throws -> any ParsableCommand {
        let runArguments: ArraySlice<String>? = switch arguments.first {
        case nil: []
        case "run": arguments.dropFirst()
        case let first? where first.hasPrefix("-"): arguments[...]
        default: nil
        }
        if let runArguments, let command = try? RunCommand.parseAsRoot(Array(runArguments)) as? RunCommand {
            return command
        }
        return try parseAsRoot(arguments)
    }
}
