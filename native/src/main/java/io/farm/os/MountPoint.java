package io.farm.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * A mounted file system as {@code /proc/self/mountinfo} shows it.
 *
 * @param mountPoint   where it is mounted
 * @param fsType       its type, e.g. {@code tmpfs}, {@code ext4}, {@code hugetlbfs}
 * @param superOptions its per-file-system options, e.g. {@code rw,size=65536k,huge=advise}
 */
record MountPoint(String mountPoint, String fsType, String superOptions) {
    /**
     * The file system on {@code device} ({@code major:minor} in hex, as in {@code /proc/self/smaps}),
     * read from {@code mountinfo} (a file in the format of {@code /proc/self/mountinfo}), or empty
     * if it is not mounted in this process's view (the kernel's internal shmem mount, say).
     */
    static Optional<MountPoint> ofDevice(Path mountinfo, String device) throws IOException {
        int colon = device.indexOf(':');
        String decimal = HexFormat.fromHexDigits(device, 0, colon) + ":" + HexFormat.fromHexDigits(device, colon + 1,
            device.length());
        for (String line : Files.readAllLines(mountinfo)) {
            // id parent major:minor root mount-point options [optional fields...] - type source super-options
            List<String> fields = Arrays.asList(line.split(" "));
            int separator = fields.indexOf("-");
            if (fields.get(2).equals(decimal) && separator > 0 && fields.size() >= separator + 4) {
                return Optional.of(new MountPoint(unescape(fields.get(4)), fields.get(separator + 1),
                    fields.get(separator + 3)));
            }
        }
        return Optional.empty();
    }

    /** The {@code huge=} option of a tmpfs mount; {@code never}, its default, when absent. */
    String hugeOption() {
        for (String option : superOptions.split(",")) {
            if (option.startsWith("huge=")) {
                return option.substring("huge=".length());
            }
        }
        return "never";
    }

    /** mountinfo writes space, tab, newline and backslash as three octal digits after a backslash. */
    private static String unescape(String field) {
        StringBuilder text = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length()) {
                text.append((char) Integer.parseInt(field, i + 1, i + 4, 8));
                i += 3;
            } else {
                text.append(c);
            }
        }
        return text.toString();
    }
}
