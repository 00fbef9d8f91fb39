public enum AvisoDaemonPlaceholder {}
