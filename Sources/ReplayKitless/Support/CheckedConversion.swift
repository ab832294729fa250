/// Conversions from Double to Int that cannot trap. `Int(someDouble)` traps on NaN, infinity and
/// values beyond Int's range, and a value computed from an input (a duration, a coordinate, a plot's
/// range) can be any of them; every conversion of such a value goes through here or `Int(exactly:)`.
extension Int {
    /// `value` rounded by `rule`, then clamped to `bounds`; NaN gives the lower bound.
    package init(clamping value: Double, rounding rule: FloatingPointRoundingRule = .towardZero,
         to bounds: ClosedRange<Int> = Int.min...Int.max) {
        let rounded = value.rounded(rule)
        if rounded.isNaN || rounded <= Double(bounds.lowerBound) {
            self = bounds.lowerBound
        } else if rounded >= Double(bounds.upperBound) {  // Double(Int.max) is 2⁶³, one past it
            self = bounds.upperBound
        } else {
            self = Int(rounded)
        }
    }
}
