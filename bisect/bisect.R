# The metric over the measured revisions of a bisect: each revision's
# ratio of mean iteration time to good's, with its 95% interval, in
# first-parent order. Run in the bisect's folder: Rscript bisect.R
suppressPackageStartupMessages(library(ggplot2))
d <- read.csv("bisect.csv", stringsAsFactors = FALSE)
d <- d[!is.na(d$ratio_to_good), ]
d$label <- paste0(d$position, " ", d$short)
d$label <- factor(d$label, levels = d$label[order(d$position)])
p <- ggplot(d, aes(x = label, y = ratio_to_good, colour = class)) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey50") +
  geom_errorbar(aes(ymin = low, ymax = high), width = 0.2) +
  geom_point(size = 3) +
  labs(x = "revision (position on the first-parent line, commit)",
       y = "mean iteration time / good's (above 1: slower)",
       colour = "verdict", title = "Bisect: the metric over the measured revisions") +
  scale_colour_manual(values = c(good = "#1b9e77", `like good` = "#66c2a5", bad = "#d95f02", `like bad` = "#fc8d62",
                                 between = "#7570b3", `not yet known` = "grey50")) +
  theme_minimal() +
  theme(axis.text.x = element_text(angle = 30, hjust = 1))
ggsave("bisect.png", p, width = 8, height = 4.5, dpi = 100)
