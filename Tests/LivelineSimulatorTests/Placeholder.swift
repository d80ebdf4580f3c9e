// Tests for LivelineSimulator go here.
