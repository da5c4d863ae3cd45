import Foundation

/// What a terminal of a given size shows after some output: a small VT100 screen that
/// knows what the queue writes (text, `\r`, `\n`, backspace, cursor home, erase display
/// and line, colours, which it ignores), with deferred wrap at the last column and
/// scrolling at the bottom, which it counts.
struct TerminalScreen {
    let columns: Int
    let rows: Int
    private(set) var grid: [[Character]]
    private var row = 0
    private var column = 0
    private var pendingWrap = false
    /// Lines that scrolled off the top.
    private(set) var scrolled = 0

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        grid = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    /// The screen after `text`, written from a cleared screen.
    init(columns: Int, rows: Int, after text: String) {
        self.init(columns: columns, rows: rows)
        feed(text)
    }

    /// The rows, trailing spaces removed.
    var lines: [String] {
        grid.map {
            String($0).replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }
    }

    private mutating func lineFeed() {
        if row == rows - 1 {
            grid.removeFirst()
            grid.append(Array(repeating: " ", count: columns))
            scrolled += 1
        } else {
            row += 1
        }
    }

    mutating func feed(_ text: String) {
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            switch character {
            case "\u{1B}":
                guard characters.first == "[" else {
                    _ = characters.popFirst()
                    continue
                }
                characters.removeFirst()
                var parameters = ""
                while let next = characters.first, next.isNumber || next == ";" || next == "?" {
                    parameters.append(next)
                    characters.removeFirst()
                }
                guard let command = characters.popFirst() else { return }
                let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false)
                    .map { Int($0) ?? 0 }
                switch command {
                case "H":
                    row = max(0, min(rows - 1, (numbers.first ?? 1) - 1))
                    column = max(0, min(columns - 1, (numbers.count > 1 ? numbers[1] : 1) - 1))
                    pendingWrap = false
                case "J" where numbers.first == 2:
                    grid = Array(repeating: Array(repeating: " ", count: columns), count: rows)
                case "K":
                    for index in column..<columns { grid[row][index] = " " }
                    pendingWrap = false
                default: break
                }
            case "\r\n":
                // One grapheme in Swift; the terminal's output processing makes every
                // "\n" this.
                column = 0
                pendingWrap = false
                lineFeed()
            case "\r":
                column = 0
                pendingWrap = false
            case "\n":
                pendingWrap = false
                lineFeed()
            case "\u{8}":
                column = max(0, column - 1)
                pendingWrap = false
            default:
                if pendingWrap {
                    column = 0
                    lineFeed()
                    pendingWrap = false
                }
                grid[row][column] = character
                if column == columns - 1 { pendingWrap = true } else { column += 1 }
            }
        }
    }
}
