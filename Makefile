# Builds pushhost in release mode and installs it: the binary, the plugin
# header and its pkg-config file, the sample plugins, the man pages, the shell
# completions, the systemd units, the documentation, and the Swift SDK as a
# package for Swift plugins.
#
#     make                              # build (swift build -c release, man pages, completions)
#     sudo make install                 # into /usr/local
#     make install PREFIX=/usr DESTDIR=/tmp/stage
#     sudo make uninstall               # removes what install wrote (same variables)
#
# Every variable below can be set on the command line. The installed binary
# and Swift samples carry the Swift runtime they link, in swiftlibdir, so they
# run where no Swift toolchain is installed; installing needs patchelf.

PREFIX ?= /usr/local
prefix = $(PREFIX)
exec_prefix = $(prefix)
bindir = $(exec_prefix)/bin
libdir = $(exec_prefix)/lib
includedir = $(prefix)/include
datarootdir = $(prefix)/share
datadir = $(datarootdir)
mandir = $(datarootdir)/man
man1dir = $(mandir)/man1
docdir = $(datadir)/doc/pushhost
pkgconfigdir = $(libdir)/pkgconfig
pluginsdir = $(libdir)/pushhost/plugins
# The sample plugins, where the units do not load them (copy one into
# pluginsdir to enable it).
samplesdir = $(libdir)/pushhost/samples
# The Swift runtime the binary and the samples link (SwiftPM links the C
# ones against libswiftCore.so too), copied from the toolchain: their RUNPATH
# names it relative to themselves ($ORIGIN), so that the installed pushhost
# runs where no Swift toolchain is installed.
swiftlibdir = $(libdir)/pushhost/swift
# The Swift SDK as a package of its own, for Swift plugins built against the
# installed pushhost (pushhost new plugin --language swift depends on it).
sdkdir = $(datadir)/pushhost/PushHostPlugin
# The SDKs of process plugins, one file each, which pushhost new plugin
# --language python|node copies beside the program it writes.
programsdkdir = $(datadir)/pushhost/sdk
systemdsystemunitdir = $(prefix)/lib/systemd/system
systemduserunitdir = $(prefix)/lib/systemd/user
bashcompletiondir = $(datadir)/bash-completion/completions
zshcompletiondir = $(datadir)/zsh/site-functions
fishcompletiondir = $(datadir)/fish/vendor_completions.d

SWIFT ?= swift
# SwiftPM's build folder (--scratch-path of every swift command), so that a
# build can have a folder of its own.
SCRATCH ?= .build

INSTALL ?= install
# Rewrites the RUNPATH of the installed binary and samples (Debian: patchelf).
PATCHELF ?= patchelf
INSTALL_PROGRAM ?= $(INSTALL) -m 0755
INSTALL_DATA ?= $(INSTALL) -m 0644
SED ?= sed

# The release products (SwiftPM links <scratch>/release to the platform's folder).
bin := $(SCRATCH)/release
# Where swift-argument-parser's generate-manual plugin writes the man pages.
manual := $(SCRATCH)/plugins/GenerateManual/outputs/pushhost
# What this Makefile makes beside SwiftPM's products.
gen := $(SCRATCH)/pushhost-make

# The sample plugins: the folders of plugins/ that hold sources (plugins/common
# and plugins/screen only hold shared headers). Package.swift builds each as
# lib<folder>.so.
samples := $(sort $(patsubst plugins/%/,%,$(dir $(wildcard plugins/*/*.c plugins/*/*.swift))))
# The documents installed into docdir, and the guides the README links to,
# in docdir/docs/ so that its links hold.
docs := README.md LICENSE CHANGELOG.md
# The Swift SDK's sources, installed into sdkdir with the header.
sdk_sources := $(wildcard sdk/Sources/PushHostPlugin/*.swift)
guides := $(sort $(wildcard docs/*.md docs/*.png))

# What swift build reads: when none is newer than the binary, `make install`
# (as root, after `make`) builds nothing and writes nothing into $(SCRATCH).
# The samples include the transports' JSON quoting too.
sources := Package.swift sdk/Package.swift $(wildcard Package.resolved) $(shell find Sources sdk/Sources plugins include -type f) transports/common/json.h

# The .pc file's directories, relative to ${prefix} (and pluginsdir to
# ${libdir}) where they lie inside it, as pkg-config files usually say them.
pc_under_prefix = $(patsubst $(prefix)/%,$${prefix}/%,$(1))
pc_includedir = $(call pc_under_prefix,$(includedir))
pc_libdir = $(call pc_under_prefix,$(libdir))
pc_pluginsdir = $(call pc_under_prefix,$(patsubst $(libdir)/%,$${libdir}/%,$(pluginsdir)))

# The path from folder $(1) to $(2), for an $$ORIGIN-relative RUNPATH.
relative = $(shell realpath -m --relative-to=$(1) $(2))
# The toolchain's runtime folder, where the build's RUNPATHs point
# (swift -print-target-info: runtimeLibraryPaths).
toolchain_runtime = $(shell $(SWIFT) -print-target-info | tr -d ' \n' | $(SED) -n 's/.*"runtimeLibraryPaths":\["\([^"]*\)".*/\1/p')

# Where make deb puts the Debian packages.
DEBDIR ?= build

.PHONY: all build man completions install uninstall clean help deb

all: build

build: $(bin)/pushhost $(gen)/man/pushhost.1 $(gen)/completions/pushhost.bash

help:
	@echo 'make [build]       swift build -c release, the man pages and the shell completions'
	@echo 'make install       build, then install into $$(DESTDIR)$$(prefix) (now $(DESTDIR)$(prefix))'
	@echo 'make uninstall     remove what install wrote (give it the same variables)'
	@echo 'make deb           the Debian packages, into $$(DEBDIR) (now $(DEBDIR)): pushhost, pushhost-dev,'
	@echo '                   pushhost-samples, pushhost-desktop, pushhost-unifiedpush, pushhost-nats'
	@echo 'make clean         swift package clean, and the man pages and completions'
	@echo 'Variables: PREFIX or prefix, DESTDIR, bindir, libdir, includedir, datadir, mandir,'
	@echo '  pluginsdir, samplesdir, swiftlibdir, sdkdir, programsdkdir, systemdsystemunitdir, systemduserunitdir,'
	@echo '  SWIFT, SCRATCH, PATCHELF'

$(bin)/pushhost: $(sources)
	$(SWIFT) build -c release --scratch-path $(SCRATCH)
	touch $@

# One page per command (pushhost.1, pushhost.run.1, ...), but not the one of
# the help command, which the argument parser adds by itself.
man: $(gen)/man/pushhost.1
$(gen)/man/pushhost.1: $(bin)/pushhost
	$(SWIFT) package --scratch-path $(SCRATCH) plugin generate-manual --multi-page
	rm -rf $(gen)/man
	mkdir -p $(gen)/man
	for page in $(manual)/pushhost*.1; do \
	    case "$${page##*/}" in pushhost.help.1|pushhost.worker.1) ;; *) cp "$$page" $(gen)/man/ ;; esac; \
	done
	test -f $@

completions: $(gen)/completions/pushhost.bash
$(gen)/completions/pushhost.bash: $(bin)/pushhost
	mkdir -p $(gen)/completions
	$(bin)/pushhost --generate-completion-script zsh > $(gen)/completions/_pushhost
	$(bin)/pushhost --generate-completion-script fish > $(gen)/completions/pushhost.fish
	$(bin)/pushhost --generate-completion-script bash > $@

# The files that name installed paths (the .pc file, the units) are made at
# install time, in a temporary folder: $(SCRATCH) is not root's to write.
install: build
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(includedir) $(DESTDIR)$(pkgconfigdir) \
	    $(DESTDIR)$(pluginsdir) $(DESTDIR)$(samplesdir) $(DESTDIR)$(swiftlibdir) $(DESTDIR)$(man1dir) $(DESTDIR)$(docdir)/docs \
	    $(DESTDIR)$(bashcompletiondir) $(DESTDIR)$(zshcompletiondir) $(DESTDIR)$(fishcompletiondir) \
	    $(DESTDIR)$(systemdsystemunitdir) $(DESTDIR)$(systemduserunitdir)
	$(INSTALL_PROGRAM) $(bin)/pushhost $(DESTDIR)$(bindir)/pushhost
	$(PATCHELF) --set-rpath '$$ORIGIN/$(call relative,$(bindir),$(swiftlibdir))' $(DESTDIR)$(bindir)/pushhost
	$(INSTALL_DATA) include/pushhost.h $(DESTDIR)$(includedir)/pushhost.h
	$(INSTALL_PROGRAM) $(foreach name,$(samples),$(bin)/lib$(name).so) $(DESTDIR)$(samplesdir)/
	for name in $(samples); do \
	    $(PATCHELF) --set-rpath '$$ORIGIN/$(call relative,$(samplesdir),$(swiftlibdir))' $(DESTDIR)$(samplesdir)/lib$$name.so || exit 1; \
	done
	for name in $(samples); do \
	    if [ -f plugins/$$name/$$name.json ]; then \
	        $(INSTALL_DATA) plugins/$$name/$$name.json $(DESTDIR)$(samplesdir)/lib$$name.json || exit 1; \
	    fi; \
	done
	runtime=$$(ldd $(bin)/pushhost $(foreach name,$(samples),$(bin)/lib$(name).so) \
	    | awk -v folder="$(toolchain_runtime)/" 'index($$3, folder) == 1 { print $$3 }' | sort -u) && \
	test -n "$$runtime" && $(INSTALL_DATA) $$runtime $(DESTDIR)$(swiftlibdir)/
	$(INSTALL_DATA) $(gen)/man/*.1 $(DESTDIR)$(man1dir)/
	$(INSTALL_DATA) $(gen)/completions/pushhost.bash $(DESTDIR)$(bashcompletiondir)/pushhost
	$(INSTALL_DATA) $(gen)/completions/_pushhost $(DESTDIR)$(zshcompletiondir)/_pushhost
	$(INSTALL_DATA) $(gen)/completions/pushhost.fish $(DESTDIR)$(fishcompletiondir)/pushhost.fish
	$(INSTALL_DATA) $(docs) $(DESTDIR)$(docdir)/
	$(INSTALL_DATA) $(guides) $(DESTDIR)$(docdir)/docs/
	$(INSTALL) -d $(DESTDIR)$(sdkdir)/Sources/PushHostPlugin $(DESTDIR)$(sdkdir)/include
	$(INSTALL_DATA) sdk/Package.swift $(DESTDIR)$(sdkdir)/Package.swift
	$(INSTALL_DATA) $(sdk_sources) $(DESTDIR)$(sdkdir)/Sources/PushHostPlugin/
	$(INSTALL_DATA) include/pushhost.h include/module.modulemap $(DESTDIR)$(sdkdir)/include/
	$(INSTALL) -d $(DESTDIR)$(programsdkdir)/python $(DESTDIR)$(programsdkdir)/node
	$(INSTALL_DATA) sdk/python/pushhost.py $(DESTDIR)$(programsdkdir)/python/
	$(INSTALL_DATA) sdk/node/pushhost.js $(DESTDIR)$(programsdkdir)/node/
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	version=$$($(bin)/pushhost --version) && \
	$(SED) -e 's|@prefix@|$(prefix)|g' -e 's|@includedir@|$(pc_includedir)|g' \
	    -e 's|@libdir@|$(pc_libdir)|g' -e 's|@pluginsdir@|$(pc_pluginsdir)|g' \
	    -e "s|@version@|$$version|g" packaging/pushhost.pc.in > "$$tmp/pushhost.pc" && \
	$(SED) -e 's|@bindir@|$(bindir)|g' -e 's|@pluginsdir@|$(pluginsdir)|g' \
	    packaging/pushhost.service.in > "$$tmp/pushhost.service" && \
	$(SED) -e 's|@bindir@|$(bindir)|g' -e 's|@pluginsdir@|$(pluginsdir)|g' \
	    packaging/pushhost-user.service.in > "$$tmp/pushhost-user.service" && \
	$(INSTALL_DATA) "$$tmp/pushhost.pc" $(DESTDIR)$(pkgconfigdir)/pushhost.pc && \
	$(INSTALL_DATA) "$$tmp/pushhost.service" $(DESTDIR)$(systemdsystemunitdir)/pushhost.service && \
	$(INSTALL_DATA) "$$tmp/pushhost-user.service" $(DESTDIR)$(systemduserunitdir)/pushhost.service

# The Debian packages (packaging/deb.sh): the release build installed with
# PREFIX=/usr into a stage of its own, and the three transports, split into
# packages, their Depends computed by dpkg-shlibdeps, built by dpkg-deb.
# Needs dpkg-dev, patchelf, and the transports' development packages.
deb: build
	$(MAKE) -C transports desktop unifiedpush nats OUT=$(abspath $(gen))/transports
	rm -rf $(gen)/deb
	$(MAKE) install DESTDIR=$(abspath $(gen))/deb PREFIX=/usr pkgconfigdir=/usr/share/pkgconfig
	packaging/deb.sh $(gen)/deb $(gen)/transports $(DEBDIR)

# Removes the files install wrote; a plugin someone else put into pluginsdir
# stays. pushhost's own folders (pluginsdir, libdir/pushhost, docdir, datadir/pushhost) go when
# they are empty; shared ones (bindir, man1dir, ...) stay.
uninstall:
	rm -f $(DESTDIR)$(bindir)/pushhost $(DESTDIR)$(includedir)/pushhost.h \
	    $(DESTDIR)$(pkgconfigdir)/pushhost.pc \
	    $(foreach name,$(samples),$(DESTDIR)$(samplesdir)/lib$(name).so $(DESTDIR)$(samplesdir)/lib$(name).json) \
	    $(DESTDIR)$(man1dir)/pushhost.1 $(DESTDIR)$(man1dir)/pushhost.*.1 \
	    $(DESTDIR)$(bashcompletiondir)/pushhost $(DESTDIR)$(zshcompletiondir)/_pushhost \
	    $(DESTDIR)$(fishcompletiondir)/pushhost.fish \
	    $(foreach doc,$(docs) $(guides),$(DESTDIR)$(docdir)/$(doc)) \
	    $(DESTDIR)$(systemdsystemunitdir)/pushhost.service $(DESTDIR)$(systemduserunitdir)/pushhost.service
	rm -rf $(DESTDIR)$(sdkdir) $(DESTDIR)$(programsdkdir) $(DESTDIR)$(swiftlibdir)
	for dir in $(DESTDIR)$(pluginsdir) $(DESTDIR)$(samplesdir) $(DESTDIR)$(libdir)/pushhost $(DESTDIR)$(docdir)/docs $(DESTDIR)$(docdir) \
	    $(DESTDIR)$(datadir)/pushhost; do \
	    if [ -d "$$dir" ]; then rmdir --ignore-fail-on-non-empty "$$dir"; fi; \
	done

clean:
	$(SWIFT) package --scratch-path $(SCRATCH) clean
	rm -rf $(gen)
