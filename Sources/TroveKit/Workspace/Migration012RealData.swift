extension Schema {
    /// What a file's last import read, beside the file: its columns, to say which one an
    /// import no longer finds, and whether its comma is a decimal comma, for `:number`.
    static let sourceColumnsAndDecimalComma = """
        ALTER TABLE sources ADD COLUMN columns TEXT;        -- JSON array of the header names
        ALTER TABLE sources ADD COLUMN decimal_comma INTEGER NOT NULL DEFAULT 0;
        """
}
