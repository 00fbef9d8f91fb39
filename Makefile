# aviso — build, run, test, install.
#   make run      build and start avisod in the foreground with the example configuration in config/
#   make check    build and run the whole test suite
#   make install  install avisod, avisoctl, the user units, the desktop entry and icon, and the shell completions
#                 under PREFIX (default ~/.local)

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX ?= $(HOME)/.local
CONFIGURATION ?= release
BUILD = .build/$(CONFIGURATION)

.PHONY: deps build run check install uninstall bench clean

deps:
	./scripts/install-deps

# avisoctl is linked with the Swift runtime inside (-static-stdlib, its own build directory): it starts in half the
# time, as fast as notify-send (README, Performance).
build: deps
	$(SWIFT) build -c $(CONFIGURATION) --product avisod
	$(SWIFT) build -c $(CONFIGURATION) --product avisoctl --scratch-path .build/static -Xswiftc -static-stdlib
	cp .build/static/$(CONFIGURATION)/avisoctl $(BUILD)/avisoctl

# The example configuration; state and socket in the usual XDG places.
run: build
	$(BUILD)/avisod --config config/aviso.conf

check: deps
	$(SWIFT) test --no-parallel

install: build
	install -Dm755 $(BUILD)/avisod $(DESTDIR)$(PREFIX)/bin/avisod
	install -Dm755 $(BUILD)/avisoctl $(DESTDIR)$(PREFIX)/bin/avisoctl
	install -d $(DESTDIR)$(HOME)/.config/systemd/user
	sed 's|%h/.local/bin|$(PREFIX)/bin|g' systemd/aviso.service > $(DESTDIR)$(HOME)/.config/systemd/user/aviso.service
	install -m644 systemd/aviso.socket $(DESTDIR)$(HOME)/.config/systemd/user/aviso.socket
	install -Dm644 data/aviso.desktop $(DESTDIR)$(PREFIX)/share/applications/aviso.desktop
	install -Dm644 data/icons/hicolor/scalable/apps/aviso.svg $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/aviso.svg
	install -Dm644 completions/avisoctl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/avisoctl
	install -Dm644 completions/_avisoctl $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_avisoctl
	install -Dm644 completions/avisoctl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/avisoctl.fish
	@echo "Now: systemctl --user daemon-reload && systemctl --user enable --now aviso.socket aviso.service"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/avisod $(DESTDIR)$(PREFIX)/bin/avisoctl $(DESTDIR)$(HOME)/.config/systemd/user/aviso.service \
		$(DESTDIR)$(HOME)/.config/systemd/user/aviso.socket $(DESTDIR)$(PREFIX)/share/applications/aviso.desktop \
		$(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/aviso.svg \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/avisoctl $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_avisoctl \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/avisoctl.fish

bench: build
	./Benchmarks/run

clean:
	rm -rf .build
