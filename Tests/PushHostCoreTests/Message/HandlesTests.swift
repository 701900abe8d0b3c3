import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PushHostPipeline
@testable import PushHostMessage
@testable import PushHostSystem

/// The handles plugins know messages by: fresh for each message, and once
/// retired, naming no message (the accessors answer NULL or "" and touch
/// nothing), whatever the message carries next.
@Suite struct HandlesTests {
    /// A message loaded with `payload`, for as long as `body` runs.
    static func withMessage(_ payload: String, _ body: (Message) throws -> Void) throws {
        try withLoadedMessage(payload, body)
    }

    /// An accessor's answer as a String, nil for NULL.
    static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    @Test func aRetiredHandleNamesNoMessage() throws {
        try Self.withMessage(#"{"message_id":"m1","data":{"k":"v","rx_gcm_key_target":"t"}}"#) { message in
            let old = message.opaque
            #expect(Self.text(Message.idText(old)) == "m1")
            #expect(Self.text(Message.value(old, atPath: "data.k")) == "v")
            message.retireHandle()
            #expect(Self.text(Message.idText(old)) == "")
            #expect(Self.text(Message.targetText(old)) == nil)
            #expect(Self.text(Message.value(old, atPath: "data.k")) == nil)
            #expect(Message.jsonText(old).count == 0)
            // The message goes on under a new handle; the old one still names nothing.
            message.claimHandle()
            #expect(message.opaque != old)
            #expect(Self.text(Message.idText(message.opaque)) == "m1")
            #expect(Self.text(Message.idText(old)) == "")
        }
    }

    @Test func everyNewHandleIsFresh() throws {
        try Self.withMessage(#"{"data":{}}"#) { message in
            var seen: Set<UInt> = [message.handleAddress]
            for _ in 0..<2_000 {
                message.retireHandle()
                message.claimHandle()
                #expect(seen.insert(message.handleAddress).inserted)
            }
        }
    }

    /// Retired at the deadline: the first late `complete` is told apart, once.
    @Test func anExpiredHandleIsRecognizedOnce() throws {
        try Self.withMessage(#"{"data":{}}"#) { message in
            let address = message.handleAddress
            #expect(!Handles.messages.takeExpired(address))
            message.retireHandle(expired: true)
            #expect(Self.text(Message.idText(OpaquePointer(bitPattern: address)!)) == "")
            #expect(Handles.messages.takeExpired(address))
            #expect(!Handles.messages.takeExpired(address))
        }
    }

    /// The mark survives the page being left behind: a page whose slots
    /// are all retired is given back to the system (which zeroes it), but
    /// not while a slot there still says "expired".
    @Test func anExpiredMarkOutlivesItsPage() throws {
        try Self.withMessage(#"{"data":{}}"#) { message in
            let address = message.handleAddress
            message.retireHandle(expired: true)
            let slotsPerPage = Int(sysconf(Int32(_SC_PAGESIZE))) / MemoryLayout<UInt>.stride
            for _ in 0..<(2 * slotsPerPage) {
                message.claimHandle()
                message.retireHandle()
            }
            message.claimHandle()
            #expect(Handles.messages.takeExpired(address))
        }
    }

    /// Pointers that are no handle at all are never followed: low memory,
    /// and 8 GiB on either side of a handle (the handles span 4 GiB at most).
    @Test func aPointerOutsideTheHandlesNamesNoMessage() throws {
        try Self.withMessage(#"{"message_id":"m1","data":{}}"#) { message in
            for address in [UInt(0x1000), message.handleAddress &+ 1 << 33, message.handleAddress &- 1 << 33] {
                #expect(Handles.messages.slot(at: address) == nil)
                #expect(Self.text(Message.idText(OpaquePointer(bitPattern: address)!)) == "")
                #expect(!Handles.messages.takeExpired(address))
            }
        }
    }

    @Test func aMisalignedPointerIntoTheHandlesNamesNoMessage() throws {
        try Self.withMessage(#"{"message_id":"m1","data":{}}"#) { message in
            let inside = message.handleAddress + 3
            #expect(Handles.messages.slot(at: inside) == nil)
            #expect(Self.text(Message.idText(OpaquePointer(bitPattern: inside)!)) == "")
        }
    }
}
