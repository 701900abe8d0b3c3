/// A problem that stops the host before it reads any input (exit status 1):
/// plugins, flags that name missing things, the state directory.
public struct SetupError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
