/// The release of pushhost: what `pushhost --version` prints, what the
/// installed `pushhost.pc` says, and the top entry of CHANGELOG.md.
package enum PushHostVersion {
    package static let current = "1.0.0"
}
