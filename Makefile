# aviso — build, run, test, install.
#   make run      build and start avisod in the foreground with the example configuration in config/
#   make check    build and run the whole test suite
#   make man      build the man pages into .build/man
#   make install  install avisod, avisoctl, the user units, the desktop entry and icon, the shell completions and
#                 the man pages under PREFIX (default ~/.local)

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX ?= $(HOME)/.local
CONFIGURATION ?= release
BUILD = .build/$(CONFIGURATION)

.PHONY: deps build man run check install uninstall bench clean

deps:
	./scripts/install-deps

# Both programs are linked with the Swift runtime inside (-static-stdlib, their own build directory): they need no
# Swift installed where they run; avisoctl starts in half the time, as fast as notify-send, and avisod's resident
# memory is 3 MiB smaller (README, Performance).
build: deps
	$(SWIFT) build -c $(CONFIGURATION) --product avisod --scratch-path .build/static -Xswiftc -static-stdlib
	$(SWIFT) build -c $(CONFIGURATION) --product avisoctl --scratch-path .build/static -Xswiftc -static-stdlib
	mkdir -p $(BUILD)
	cp .build/static/$(CONFIGURATION)/avisod .build/static/$(CONFIGURATION)/avisoctl $(BUILD)/

# Man pages from their scdoc sources: avisoctl(1), avisod(8), aviso.conf(5).
MANPAGES = $(patsubst doc/%.scd,.build/man/%,$(wildcard doc/*.scd))
man: $(MANPAGES)
.build/man/%: doc/%.scd
	@mkdir -p .build/man
	scdoc < $< > $@

# The example configuration; state and socket in the usual XDG places.
run: build
	$(BUILD)/avisod --config config/aviso.conf

check: deps
	$(SWIFT) test

install: build man
	install -Dm755 $(BUILD)/avisod $(DESTDIR)$(PREFIX)/bin/avisod
	install -Dm755 $(BUILD)/avisoctl $(DESTDIR)$(PREFIX)/bin/avisoctl
	install -d $(DESTDIR)$(HOME)/.config/systemd/user
	sed 's|%h/.local/bin|$(PREFIX)/bin|g' systemd/aviso.service > $(DESTDIR)$(HOME)/.config/systemd/user/aviso.service
	install -m644 systemd/aviso.socket $(DESTDIR)$(HOME)/.config/systemd/user/aviso.socket
	install -Dm644 data/aviso.desktop $(DESTDIR)$(PREFIX)/share/applications/aviso.desktop
	install -d $(DESTDIR)$(PREFIX)/share/dbus-1/services
	sed 's|^Exec=/usr/bin/|Exec=$(PREFIX)/bin/|' data/org.aviso.Scheduler1.service > $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.aviso.Scheduler1.service
	install -Dm644 data/icons/hicolor/scalable/apps/aviso.svg $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/aviso.svg
	install -Dm644 completions/avisoctl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/avisoctl
	install -Dm644 completions/_avisoctl $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_avisoctl
	install -Dm644 completions/avisoctl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/avisoctl.fish
	install -Dm644 .build/man/avisoctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/avisoctl.1
	install -Dm644 .build/man/avisod.8 $(DESTDIR)$(PREFIX)/share/man/man8/avisod.8
	install -Dm644 .build/man/aviso.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/aviso.conf.5
	@echo "Now: systemctl --user daemon-reload && systemctl --user enable --now aviso.socket aviso.service"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/avisod $(DESTDIR)$(PREFIX)/bin/avisoctl $(DESTDIR)$(HOME)/.config/systemd/user/aviso.service \
		$(DESTDIR)$(HOME)/.config/systemd/user/aviso.socket $(DESTDIR)$(PREFIX)/share/applications/aviso.desktop \
		$(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/aviso.svg \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/avisoctl $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_avisoctl \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/avisoctl.fish $(DESTDIR)$(PREFIX)/share/man/man1/avisoctl.1 \
		$(DESTDIR)$(PREFIX)/share/man/man8/avisod.8 $(DESTDIR)$(PREFIX)/share/man/man5/aviso.conf.5 \
		$(DESTDIR)$(PREFIX)/share/dbus-1/services/org.aviso.Scheduler1.service

bench: build
	./Benchmarks/run

clean:
	rm -rf .build
