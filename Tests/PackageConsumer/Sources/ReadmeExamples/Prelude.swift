// What README.md's examples take as given: the app's own data and code.

/// One of the app's users, with the update token of their Live Activity.
struct Passenger: Sendable {
    var activityToken: String
}

/// The users to update ("Sending many pushes").
let passengers: [Passenger] = []

/// Drops a token APNs says is no longer valid ("Sending many pushes").
func forget(_ deviceToken: String) {}
