/// A problem that stops the host before it reads any input (exit status 1):
/// plugins, flags that name missing things, the state directory.
package struct SetupError: Error, CustomStringConvertible, Sendable {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
