import Foundation

/// Dates as the litter app and its exports write them.
public enum PostDate {
    private static let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// Normalises a date to ISO 8601, or nil when it is in no known form.
    ///
    /// Accepts ISO 8601 days and moments (with `Z`, an offset, or no zone, read as UTC;
    /// fractional seconds dropped), the app's `24Jan 2022` style (also `24 Jan 2022`,
    /// `24 January 2022`), and Unix times in seconds or milliseconds.
    public static func normalize(_ text: String) -> String? {
        if isCanonical(text) { return text }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if isCanonical(trimmed) { return trimmed }
        if let day = appStyle(trimmed) { return day }
        if let moment = iso(trimmed) { return moment }
        if let number = Double(trimmed), number.isFinite, number > 0 {
            return epoch(number)
        }
        return nil
    }

    /// A Unix time (seconds, or milliseconds when larger than 10¹¹) as ISO 8601.
    public static func epoch(_ number: Double) -> String? {
        guard number.isFinite, number > 0, number < 1e14 else { return nil }
        let seconds = number > 1e11 ? number / 1000 : number
        return format(Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    /// The moment a stored date stands for (a day stands for its start, UTC).
    ///
    /// Stored dates have one of two fixed shapes, read here by hand: signals compare
    /// dates of many post pairs, and a date formatter per comparison is far too slow.
    public static func moment(_ stored: String) -> Date? {
        let digits = Array(stored.utf8)
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < digits.count, (48...57).contains(digits[index]) else { return nil }
                value = value * 10 + Int(digits[index] - 48)
            }
            return value
        }
        guard digits.count == 10 || digits.count == 20,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            digits[4] == UInt8(ascii: "-"), digits[7] == UInt8(ascii: "-"),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = daysFromCivil(year, month, day) * 86_400
        if digits.count == 20 {
            guard digits[10] == UInt8(ascii: "T"), digits[19] == UInt8(ascii: "Z"),
                let hour = number(11..<13), let minute = number(14..<16),
                let second = number(17..<19)
            else { return nil }
            seconds += hour * 3600 + minute * 60 + second
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Whether `text` is already in a stored shape, `2022-01-24` or
    /// `2022-01-24T10:15:00Z`, with a real day and time (checked by hand: the date
    /// formatters cost more than all the rest of reading a post, and apps mostly write
    /// these shapes). Years before 1600 are left to the formatters, whose calendar turns
    /// Julian there.
    static func isCanonical(_ text: String) -> Bool {
        let digits = Array(text.utf8)
        guard digits.count == 10 || digits.count == 20 else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (48...57).contains(digits[index]) else { return nil }
                value = value * 10 + Int(digits[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            digits[4] == UInt8(ascii: "-"), digits[7] == UInt8(ascii: "-"), year >= 1600,
            (1...12).contains(month), day >= 1
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= lengths[month - 1] else { return false }
        guard digits.count == 20 else { return true }
        guard digits[10] == UInt8(ascii: "T"), digits[13] == UInt8(ascii: ":"),
            digits[16] == UInt8(ascii: ":"), digits[19] == UInt8(ascii: "Z"),
            let hour = number(11..<13), let minute = number(14..<16),
            let second = number(17..<19)
        else { return false }
        return hour < 24 && minute < 60 && second < 60
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func appStyle(_ text: String) -> String? {
        let scalars = Array(text.lowercased())
        var index = 0
        var dayText = ""
        while index < scalars.count, scalars[index].isASCII, scalars[index].isNumber {
            dayText.append(scalars[index])
            index += 1
        }
        guard (1...2).contains(dayText.count) else { return nil }
        while index < scalars.count, scalars[index] == " " { index += 1 }
        var monthText = ""
        while index < scalars.count, scalars[index].isASCII, scalars[index].isLetter {
            monthText.append(scalars[index])
            index += 1
        }
        while index < scalars.count, scalars[index] == " " || scalars[index] == "," {
            index += 1
        }
        let yearText = String(scalars[index...])
        guard monthText.count >= 3, yearText.count == 4, let year = Int(yearText),
            let month = months.firstIndex(where: { monthText.hasPrefix($0) }),
            let day = Int(dayText)
        else { return nil }
        guard self.day(year, month + 1, day) != nil else { return nil }
        return String(format: "%04d-%02d-%02d", year, month + 1, day)
    }

    private static func iso(_ text: String) -> String? {
        if text.count == 10,
            let date = day(
                Int(text.prefix(4)), Int(text.dropFirst(5).prefix(2)), Int(text.suffix(2))),
            text.dropFirst(4).first == "-", text.dropFirst(7).first == "-"
        {
            _ = date
            return text
        }
        var candidate = text.replacingOccurrences(of: " ", with: "T")
        // Fractional seconds carry nothing a moderator needs; drop them before parsing.
        if let dot = candidate.firstIndex(of: ".") {
            var end = candidate.index(after: dot)
            while end < candidate.endIndex, candidate[end].isNumber {
                end = candidate.index(after: end)
            }
            candidate.removeSubrange(dot..<end)
        }
        let hasZone =
            candidate.hasSuffix("Z")
            || candidate.dropFirst(19).contains(where: { $0 == "+" || $0 == "-" })
        if !hasZone { candidate += "Z" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: candidate) else { return nil }
        return format(date)
    }

    private static func day(_ year: Int?, _ month: Int?, _ day: Int?) -> Date? {
        guard let year, let month, let day, (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day
        else { return nil }
        return date
    }

    /// A moment as `2022-01-24T10:15:00Z`.
    package static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
