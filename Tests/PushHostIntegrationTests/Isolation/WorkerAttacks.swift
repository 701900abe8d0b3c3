extension PluginSource {
    /// C for the worker plugin (``worker(name:roles:targets:)``): the faults
    /// of its on_data that attack the host through the worker's channel to
    /// it, as only a plugin that knows how a worker talks would.
    /// `attack(self, m, fault)` does one, then waits to be killed (or, when
    /// the message's `data.after` is `return`, returns 0 at once); it
    /// returns 1 when `fault` is none of them:
    /// - `scribble`: 4 KiB of (seeded) random bytes to each of its
    ///   descriptors 3 to 7 (3 is its socket to the host), except its log's;
    /// - `socket-frame`: a frame header that says 4 GiB, on its socket;
    /// - `ring-head`: the ring's positions: its write position 2 MiB past
    ///   the read position, the shared read position garbage;
    /// - `ring-frame`: a returned frame's header that says 4 GiB, published as 20 bytes;
    /// - `ring-field`: a whole returned frame whose problem says 4 GiB;
    /// - `ring-call`: a well-formed answer to call 999999, which was never made;
    /// - `ring-complete`: a well-formed verdict for call 999999.
    ///
    /// Each `ring-` attack first waits (10 s at most) until the host took
    /// every answer the ring holds, so that the answers before it count.
    static let workerAttacks = #"""
        /* The channel as a worker lays it out: its socket is fd 3; its
         * answer ring, a memfd mapped as "pushhost-worker", is a page whose
         * first u64 is the worker's write position and whose u64 at 64 is
         * the host's read position, then 1 MiB of frames:
         * [u32 length][u8 kind][u8 handler][u16 0][u64 call][i32 number][payload]. */
        #define CHANNEL 3
        #define RING_DATA 4096
        #define RING_CAPACITY (1u << 20)
        #define KIND_RETURNED 5
        #define KIND_COMPLETED 6

        static unsigned char *find_ring(void) {
            FILE *maps = fopen("/proc/self/maps", "r");
            if (!maps) return NULL;
            char line[512];
            unsigned long start = 0;
            while (fgets(line, sizeof line, maps)) {
                if (strstr(line, "memfd:pushhost-worker") && sscanf(line, "%lx-", &start) == 1) break;
                start = 0;
            }
            fclose(maps);
            return (unsigned char *)start;
        }

        static uint64_t *position(unsigned char *ring, int offset) { return (uint64_t *)(void *)(ring + offset); }

        static void wake_host(void) {
            unsigned char wake = 1;
            ssize_t sent = write(CHANNEL, &wake, 1);
            (void)sent;
        }

        static void catch_up(unsigned char *ring) {
            for (int i = 0; i < 10000; i++) {
                if (i % 100 == 0) wake_host();
                uint64_t written = __atomic_load_n(position(ring, 0), __ATOMIC_ACQUIRE);
                if (__atomic_load_n(position(ring, 64), __ATOMIC_ACQUIRE) == written) return;
                struct timespec wait = {0, 1000000L};
                nanosleep(&wait, NULL);
            }
        }

        /* Appends `count` bytes at the write position and publishes them, as a worker does. */
        static void ring_put(unsigned char *ring, const unsigned char *bytes, size_t count) {
            uint64_t at = __atomic_load_n(position(ring, 0), __ATOMIC_RELAXED);
            for (size_t i = 0; i < count; i++) ring[RING_DATA + (at + i) % RING_CAPACITY] = bytes[i];
            __atomic_store_n(position(ring, 0), at + count, __ATOMIC_RELEASE);
            wake_host();
        }

        static void put_u32(unsigned char *out, uint32_t value) {
            for (int i = 0; i < 4; i++) out[i] = (unsigned char)(value >> (8 * i));
        }

        /* A frame's 20-byte header, its number 0. */
        static void header(unsigned char *out, uint32_t length, unsigned char kind, uint64_t call) {
            memset(out, 0, 20);
            put_u32(out, length);
            out[4] = kind;
            for (int i = 0; i < 8; i++) out[8 + i] = (unsigned char)(call >> (8 * i));
        }

        /* Does the attack `fault` names; 1 when it names none. */
        static int forge(worker *self, const char *fault) {
            unsigned char frame[28];
            if (strcmp(fault, "scribble") == 0) {
                unsigned int seed = 1;
                unsigned char bytes[4096];
                for (int fd = 3; fd <= 7; fd++) {
                    if (fd == fileno(self->out)) continue;
                    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)rand_r(&seed);
                    ssize_t written = write(fd, bytes, sizeof bytes);
                    (void)written;
                }
                return 0;
            }
            if (strcmp(fault, "socket-frame") == 0) {
                header(frame, 0xFFFFFFF0u, KIND_RETURNED, 1);
                ssize_t written = write(CHANNEL, frame, 20);
                (void)written;
                return 0;
            }
            if (strncmp(fault, "ring-", 5) != 0) return 1;
            unsigned char *ring = find_ring();
            if (!ring) {
                say(self, "attack: no ring in /proc/self/maps");
                return 0;
            }
            catch_up(ring);
            if (strcmp(fault, "ring-head") == 0) {
                uint64_t taken = __atomic_load_n(position(ring, 64), __ATOMIC_ACQUIRE);
                __atomic_store_n(position(ring, 64), (uint64_t)0xdeadbeef, __ATOMIC_RELEASE);
                __atomic_store_n(position(ring, 0), taken + 2 * RING_CAPACITY, __ATOMIC_RELEASE);
                wake_host();
            } else if (strcmp(fault, "ring-frame") == 0) {
                header(frame, 0xFFFFFFF0u, KIND_RETURNED, 0);
                ring_put(ring, frame, 20);
            } else if (strcmp(fault, "ring-field") == 0) {
                header(frame, 24, KIND_RETURNED, 0);
                put_u32(frame + 20, 0xFFFFFFF0u);
                memcpy(frame + 24, "oops", 4);
                ring_put(ring, frame, 28);
            } else if (strcmp(fault, "ring-call") == 0) {
                header(frame, 16, KIND_RETURNED, 999999);
                ring_put(ring, frame, 20);
            } else if (strcmp(fault, "ring-complete") == 0) {
                header(frame, 16, KIND_COMPLETED, 999999);
                ring_put(ring, frame, 20);
            } else {
                return 1;
            }
            return 0;
        }

        static int attack(worker *self, const ph_message *m, const char *fault) {
            if (!fault || forge(self, fault)) return 1;
            const char *after = self->host->message_get(m, "data.after");
            if (after && strcmp(after, "return") == 0) return 0;
            for (;;) pause();
        }
        """#
}
