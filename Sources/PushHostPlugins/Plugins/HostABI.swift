import CPushHost

/// The ABI version this host was built with, from `include/pushhost.h`.
package enum HostABI {
    package static let major = UInt32(PH_ABI_MAJOR)
    package static let minor = UInt32(PH_ABI_MINOR)

    /// The extension ids a plugin may declare (`ph_plugin.extensions`):
    /// those plugins offer, then those the host offers.
    static let extensions = [PH_EXT_INTERCEPTOR, PH_EXT_SOURCE, PH_EXT_CHAIN, PH_EXT_INTAKE, PH_EXT_STATE, PH_EXT_METRICS, PH_EXT_BUS]

    /// Whether a plugin built for `major.minor` may load here: the majors are
    /// equal and the plugin's minor is not above the host's.
    package static func accepts(major: UInt32, minor: UInt32) -> Bool {
        major == Self.major && minor <= Self.minor
    }
}
