import Testing

/// The end-to-end suites, one test at a time: each starts avisod with a real notification server (dunst or
/// xfce4-notifyd under Xvfb) and waits for what a person would see, against deadlines.
@Suite(.serialized) enum EndToEnd {}
