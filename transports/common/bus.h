/* The session bus, for the transports that talk to it (desktop,
 * unifiedpush): header-only, since only they link sd-bus. */
#ifndef TRANSPORT_BUS_H
#define TRANSPORT_BUS_H

#include <pushhost.h>

#include <errno.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

/* Connects to the session bus, into *out: through the host when it offers
 * ph.bus/1 (behind a worker's walls, the only way to the bus: the plugin
 * makes no Unix socket, and the host connects to the bus its settings
 * grant), else as sd-bus does. 0, or a negative errno. */
static inline int transport_bus_open(const ph_host *host, sd_bus **out) {
    const ph_bus *table = host->get_extension(host, PH_EXT_BUS);
    if (!table) return sd_bus_open_user(out);
    int fd = table->connect(host, "session");
    if (fd < 0) return -errno;
    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r < 0) {
        close(fd);
        return r;
    }
    /* The bus owns the socket from here: closing the bus closes it. */
    r = sd_bus_set_fd(bus, fd, fd);
    if (r >= 0) r = sd_bus_set_bus_client(bus, 1);
    if (r >= 0) r = sd_bus_set_trusted(bus, 1);
    if (r >= 0) r = sd_bus_start(bus);
    if (r < 0) {
        sd_bus_flush_close_unref(bus);
        return r;
    }
    *out = bus;
    return 0;
}

#endif
