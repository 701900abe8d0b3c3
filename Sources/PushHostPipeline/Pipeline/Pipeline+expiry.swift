import PushHostMessage

import PushHostSystem
import PushHostPlugins

extension Pipeline {
    /// Whether `flight`'s message is past its lifetime now (see
    /// ``Lifetime``), noted in the record once it is: such a message
    /// reaches no UI handler, and its status is `expired`.
    @inline(__always)
    func hasExpired(_ flight: InFlight) -> Bool {
        if flight.expired { return true }
        guard flight.message.lifetime != .unlimited else { return false }
        flight.expired = flight.message.lifetime.isPast(arrival: flight.arrival, now: wallClockMilliseconds())
        return flight.expired
    }
}
