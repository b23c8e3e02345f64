import Testing

/// The tags CI selects the sanitizer runs by (`.ci/run`, through `Scripts/tagged-tests.py`): a test or
/// suite carries the tag of every run it must be part of, so a new concurrency test joins the Thread
/// Sanitizer run by being tagged, not by being added to a list.
extension Tag {
    /// Threads, tasks or actors use the engine at once: run under Thread Sanitizer.
    @Tag static var concurrency: Self
    /// Exercises the engine's unchecked and unsafe paths: run under Address Sanitizer.
    @Tag static var engine: Self
    /// Needs nearly the whole of a small thread stack, which instrumented frames exceed: left out of the
    /// sanitizer runs.
    @Tag static var deepStack: Self
    /// Compares stack depths, which Address Sanitizer changes by moving frames to the heap: left out of
    /// its run.
    @Tag static var stackDepthSensitive: Self
}
