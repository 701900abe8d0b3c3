/// A mistake in how the command was called (exit status 2).
package struct UsageError: Error, CustomStringConvertible, Sendable {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
