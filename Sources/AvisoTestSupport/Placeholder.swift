public enum AvisoTestSupportPlaceholder {}
