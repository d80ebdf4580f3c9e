// Tests for LivelineAPNS go here.
