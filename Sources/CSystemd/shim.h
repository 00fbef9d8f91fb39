#pragma once
#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>
// Without the macro that adds the C caller's file and line, sd_journal_sendv is a plain function Swift can call.
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
