import FuzzHarness

/// libFuzzer calls this once per input (built with -sanitize=fuzzer, which supplies main).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.layout.fuzz(data, size)
}
