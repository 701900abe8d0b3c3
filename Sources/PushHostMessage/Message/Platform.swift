/// A device platform, for FCM HTTP v1 messages (`--platform`).
package enum Platform: String, Sendable, CaseIterable {
    case android
    case apns
    case webpush
}
