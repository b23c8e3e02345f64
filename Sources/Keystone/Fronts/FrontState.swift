/// The fronts' bookkeeping for one container: Registry startup state, and the order in which the fronts
/// registered. What a front knows of each of its registrations is on the registration's entry (a
/// ``FrontRecord``), not here: the state holds plain data only, never an entry or an instance.
struct FrontState {
    var registry = RegistryState()
    /// Whether ``DIActor/shared`` has fronted the container: it turns counting on once, and leaves
    /// the setting to the app afterwards.
    var frontedByActor = false
    /// The order the next registration a front makes gets.
    private var nextOrder = 0

    /// Returns the next registration order, and counts it.
    mutating func takeOrder() -> Int {
        defer { nextOrder += 1 }
        return nextOrder
    }
}
