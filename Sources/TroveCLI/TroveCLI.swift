import TroveKit
