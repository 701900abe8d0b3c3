import CPushHost
import PushHostMessage
import PushHostRecords

/// A plugin elsewhere (``RemotePlugin``) as the dispatch thread calls it on
/// every message: its object's address and its type, so that a call takes
/// no reference count (a call through `any RemotePlugin` retains and
/// releases the object around it, an atomic operation each).
///
/// Valid while its ``PluginInstance`` lives; the stages that call it never
/// outlive their plugin set.
@usableFromInline package struct UnretainedRemote {
    @usableFromInline package let object: UnsafeMutableRawPointer
    @usableFromInline let type: any RemotePlugin.Type
    /// The plugin, for the calls that are not made per message (they retain it).
    @usableFromInline package unowned(unsafe) let plugin: any RemotePlugin

    package init(_ remote: any RemotePlugin) {
        object = Unmanaged.passUnretained(remote as AnyObject).toOpaque()
        type = Swift.type(of: remote)
        plugin = remote
    }

    @inlinable @inline(__always)
    package func callData(_ flight: InFlight) -> ph_verdict {
        type.callData(at: object, flight)
    }

    @inlinable @inline(__always)
    package func deliver(_ handler: PluginHandler, _ message: Message) -> UInt64? {
        type.deliver(at: object, handler, message)
    }

    @inlinable @inline(__always)
    package var answeredThrough: UInt64 {
        type.answeredThrough(at: object)
    }
}

extension RemotePlugin {
    @inlinable
    package static func callData(at object: UnsafeMutableRawPointer, _ flight: InFlight) -> ph_verdict {
        Unmanaged<Self>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.callData(flight) }
    }

    @inlinable
    package static func deliver(at object: UnsafeMutableRawPointer, _ handler: PluginHandler, _ message: Message) -> UInt64? {
        Unmanaged<Self>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.deliver(handler, message) }
    }

    @inlinable
    package static func answeredThrough(at object: UnsafeMutableRawPointer) -> UInt64 {
        Unmanaged<Self>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.answeredThrough }
    }
}
