"""What every item kind shares: analyzer, index fields, generations, channels, fusion, floor, pins."""
