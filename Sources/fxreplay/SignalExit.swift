import Foundation
import ReplayKitless

/// How `fxreplay` ends on a stopping signal, once the library has removed the run's temporary
/// files (``InterruptCleanup``): it says why on stderr and exits with 128 + the signal number
/// (formats.md §8). Here, not in the library, which never ends the process of a program using it.
enum SignalExit {
    static func stop(_ signalNumber: Int32) -> Never {
        let newLine = ProgressReporter.isBarOpen ? "\n" : ""
        Console.write(newLine + "fxreplay: \(InterruptCleanup.reason(signalNumber)), no output written\n")
        _exit(128 + signalNumber)
    }
}
