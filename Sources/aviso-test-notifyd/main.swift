import Glibc
import TestBusServerKit

// aviso-test-notifyd: a scriptable org.freedesktop.Notifications server for tests.
// Usage: aviso-test-notifyd [--caps body,body-markup,actions] [--name NAME] [--version V] [--bad-replies]
//                           [--ignore-replaces] [--invoke-before-reply KEY]
// --ignore-replaces: answer every Notify with a new id, replaces_id or not, as a server that does not replace does.
// --invoke-before-reply: on each Notify, emit ActionInvoked(id, KEY) before answering the call, as a fast script
// (or a person quicker than the bus) can make a server do.

var capabilities = ["body", "body-markup", "actions", "persistence"]
var name = "aviso-test-notifyd"
var version = "1.0"
var badReplies = false
var ignoreReplaces = false
var invokeBeforeReply: String?

var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    if option == "--bad-replies" {
        badReplies = true
        continue
    }
    if option == "--ignore-replaces" {
        ignoreReplaces = true
        continue
    }
    guard let value = arguments.popFirst() else {
        EventLine.write("aviso-test-notifyd: \(option) needs a value", to: 2)
        exit(2)
    }
    switch option {
    case "--caps": capabilities = value.split(separator: ",").map(String.init)
    case "--name": name = value
    case "--version": version = value
    case "--invoke-before-reply": invokeBeforeReply = value
    default:
        EventLine.write("aviso-test-notifyd: unknown option \(option)", to: 2)
        exit(2)
    }
}

let server = NotificationServer(capabilities: capabilities, name: name, version: version, badReplies: badReplies,
                                ignoreReplaces: ignoreReplaces, invokeBeforeReply: invokeBeforeReply)
exit(server.run())
