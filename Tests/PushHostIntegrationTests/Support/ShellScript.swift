/// What the tests' shell scripts share: they feed the host standard input
/// in parts, and wait on what it writes in between.
enum ShellScript {
    /// `wait_for PATTERN FILE PROBLEM`: waits up to 20 s for FILE to hold
    /// PATTERN; if it never does, writes PROBLEM on standard error.
    static let waitFor = #"""
        wait_for() {
          tries=0
          until grep -q "$1" "$2" 2>/dev/null; do
            tries=$((tries + 1))
            if [ $tries -gt 400 ]; then echo "$3" >&2; return 1; fi
            sleep 0.05
          done
        }

        """#
}
