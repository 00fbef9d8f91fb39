#pragma once
// Tiny C helpers for what Swift cannot call directly: GLib macros and variadic functions.
#include <libnotify/notify.h>
#include <gio/gio.h>

/// The server-assigned id of a shown notification (the "id" property; g_object_get is variadic).
gint aviso_notification_id(NotifyNotification *notification);
