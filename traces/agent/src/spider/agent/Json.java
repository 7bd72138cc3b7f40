package spider.agent;

/** JSON string escaping for names that come from the program. */
final class Json {
    private Json() {}

    static String esc(String s) {
        int i = 0, n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20) break;
            i++;
        }
        if (i == n) return s;
        StringBuilder b = new StringBuilder(n + 8).append(s, 0, i);
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.toString();
    }
}
