#!/usr/bin/env Rscript
# lnbench plots. Written by lnbench next to the files it reads: summary.csv
# and measurements.csv (the CSV exporter's output, as BenchmarkDotNet's R
# exporter reads its CSV exporter's), resources-timeline.csv when the
# run sampled resources and faults.csv when it injected faults.
# Writes plot-*.png into the same folder.
#   Rscript plots.R [DIR]
# Needs R and ggplot2 only (Debian: r-base-core r-cran-ggplot2); no network.
suppressPackageStartupMessages(library(ggplot2))

args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args) >= 1) args[1] else "."
# 0. Cost curve (costcurve.csv and costcurve-fit.csv, written when the
# run's networks differ in size): time to ready and RSS at ready against
# the node count, the fitted lines extended to the largest N the memory fit
# holds, and MemAvailable on the memory panel. Drawn before the payments'
# plots: it needs no measured payment.
cc_file <- file.path(dir, "costcurve.csv")
if (file.exists(cc_file)) {
  cc <- read.csv(cc_file, stringsAsFactors = FALSE, colClasses = c(Node = "character"))
  fit <- read.csv(file.path(dir, "costcurve-fit.csv"), stringsAsFactors = FALSE, colClasses = c(Node = "character"))
  lab <- c(Ready = "time to ready (s)", RSS = "RSS at ready, all actors (MiB)")
  specs <- unique(cc$Node)
  pts <- rbind(data.frame(Node = cc$Node, quantity = lab[["Ready"]], Nodes = cc$Nodes, value = cc$Ready_s),
               data.frame(Node = cc$Node, quantity = lab[["RSS"]], Nodes = cc$Nodes, value = cc$RSS_MiB))
  xmax <- max(c(cc$Nodes, fit$MaxNodes))
  lines <- do.call(rbind, lapply(seq_len(nrow(fit)), function(i) {
    f <- fit[i, ]
    x <- c(0, xmax)
    data.frame(Node = f$Node, quantity = lab[[f$Quantity]], Nodes = x, value = f$Intercept + f$Slope * x,
               label = sprintf("%s%.3g + %.3g N (R² %.3f)", if (length(specs) > 1) paste0(f$Node, ": ") else "", f$Intercept, f$Slope, f$R2))
  }))
  for (d in c("pts", "lines")) assign(d, transform(get(d), quantity = factor(quantity, levels = unname(lab)), Node = factor(Node, levels = specs)))
  labels <- lines[!duplicated(paste(lines$Node, lines$quantity)), ]
  labels$rank <- as.integer(labels$Node)
  g <- ggplot(pts, aes(x = Nodes, y = value, colour = Node)) +
    geom_line(data = lines, aes(group = Node), linetype = "dashed") +
    geom_point(size = 3) +
    geom_text(data = labels, aes(x = Inf, y = -Inf, label = label, vjust = -0.8 - 1.5 * (rank - 1)), hjust = 1.05, size = 3, show.legend = FALSE) +
    facet_wrap(~quantity, scales = "free_y") + expand_limits(y = 0) + theme_bw() +
    labs(title = "Cost curve", x = "Lightning nodes (N)", y = NULL, colour = "Node")
  if (length(specs) == 1) g <- g + scale_colour_manual(values = "steelblue", guide = "none")
  mem <- fit[fit$Quantity == "RSS" & fit$MemAvailable_MiB > 0, ]
  if (nrow(mem) > 0) {
    avail <- data.frame(quantity = factor(lab[["RSS"]], levels = unname(lab)), y = max(mem$MemAvailable_MiB),
                        label = sprintf("MemAvailable %.0f MiB: max N ≈ %s", max(mem$MemAvailable_MiB), paste(mem$MaxNodes, collapse = " / ")))
    g <- g + geom_hline(data = avail, aes(yintercept = y), colour = "firebrick") +
      geom_text(data = avail, aes(x = 0, y = y, label = label), inherit.aes = FALSE, hjust = 0, vjust = 1.5, size = 3, colour = "firebrick")
  }
  ggsave(file.path(dir, "plot-cost-curve.png"), g, width = 10, height = 4.5, dpi = 100)
}

summary <- read.csv(file.path(dir, "summary.csv"), check.names = FALSE, stringsAsFactors = FALSE)
m <- read.csv(file.path(dir, "measurements.csv"), stringsAsFactors = FALSE)
m <- m[m$phase == "measure" & m$case %in% summary$Case, ]
if (nrow(m) == 0) {
  message("no measured payments: nothing to plot")
  quit(status = 0)
}
# Params are the columns between Method and Iterations; the node spec is
# the Node column (absent in folders written before it existed).
params <- names(summary)[seq_len(which(names(summary) == "Iterations") - 2) + 1]
if (!("Node" %in% names(summary))) summary$Node <- "all"
cases <- summary$Case
m$case <- factor(m$case, levels = cases)
inv <- setNames(summary$InvocationCount, cases)
node_of <- setNames(summary$Node, cases)
nodes <- unique(summary$Node)
# Several node specs: colour by spec, and compare specs within one panel
# per combination of the other params.
multi <- length(nodes) > 1
rest <- if (length(params) == 0) rep("all", nrow(summary)) else
  do.call(paste, c(lapply(params, function(n) paste0(n, "=", summary[[n]])), sep = "/"))
rest_of <- setNames(rest, cases)
save <- function(name, plot, height) {
  ggsave(file.path(dir, name), plot, width = 8, height = height, dpi = 100)
}
theme_set(theme_bw())

# One row per measured iteration, as the analysis computes it: wall time
# from the first start to the last end, divided by the invocations.
iters <- do.call(rbind, lapply(split(m, list(m$case, m$iteration), drop = TRUE), function(d) {
  c <- as.character(d$case[1])
  wall <- (max(d$end_unix_ns) - min(d$start_unix_ns)) / 1e9
  data.frame(case = c, iteration = d$iteration[1], seconds = wall / inv[[c]],
             payments_per_sec = sum(d$status == "succeeded") / wall)
}))
iters$case <- factor(iters$case, levels = cases)
iters$Node <- factor(node_of[as.character(iters$case)], levels = nodes)

# 1. Distribution of iteration times per case: box, violin when there are
# enough points to estimate a density, and every iteration as a point.
p <- ggplot(iters, aes(x = case, y = seconds))
if (min(table(iters$case)) >= 5) p <- p + geom_violin(fill = "grey90", colour = NA)
p <- p + geom_boxplot(width = 0.3, outlier.shape = NA, fill = NA)
p <- if (multi) p + geom_jitter(aes(colour = Node), width = 0.08, height = 0, alpha = 0.7) else
  p + geom_jitter(width = 0.08, height = 0, alpha = 0.6, colour = "steelblue")
p <- p + coord_flip() + labs(title = "Iteration time", x = NULL, y = "seconds per iteration")
save("plot-iteration-times.png", p, 1.5 + 0.6 * length(cases))

# 2. Payments/s against each param that takes more than one value; the
# other params' values tell the lines apart.
label <- function(d, names) {
  if (length(names) == 0) return(rep("all", nrow(d)))
  do.call(paste, c(lapply(names, function(n) paste0(n, "=", d[[n]])), sep = "/"))
}
for (param in params) {
  if (length(unique(summary[[param]])) < 2) next
  others <- setdiff(params, param)
  s <- summary
  s$group <- label(s, others)
  # One line per spec and combination of the other params: coloured by
  # spec when there are several, in one panel per combination.
  s$colour <- if (multi) factor(s$Node, levels = nodes) else s$group
  s$line <- paste(s$Node, s$group)
  d <- merge(iters[, c("case", "iteration", "payments_per_sec")], s[, c("Case", param, "group", "colour", "line")], by.x = "case", by.y = "Case")
  g <- ggplot(d, aes(x = .data[[param]], y = payments_per_sec, colour = colour, group = line)) +
    geom_point(alpha = 0.4) +
    geom_line(data = s, aes(y = PaymentsPerSec)) +
    geom_point(data = s, aes(y = PaymentsPerSec), size = 3) +
    expand_limits(y = 0) +
    labs(title = paste("Payments/s by", param), x = param, y = "successful payments per second", colour = NULL)
  if (multi && length(others) > 0 && length(unique(s$group)) > 1) g <- g + facet_wrap(~group)
  if (!multi && length(others) == 0) g <- g + guides(colour = "none")
  save(paste0("plot-payments-per-sec-", param, ".png"), g, 4.5)
}

# 3. Latency CDF of the successful payments, log scale when the tail is long.
ok <- m[m$status == "succeeded", ]
if (nrow(ok) > 0) {
  if (multi) {
    # Specs side by side: one panel per combination of the other params.
    ok$Node <- factor(node_of[as.character(ok$case)], levels = nodes)
    ok$rest <- rest_of[as.character(ok$case)]
    g <- ggplot(ok, aes(x = latency_ms, colour = Node, group = case)) + stat_ecdf(geom = "step")
    if (length(unique(rest)) > 1) g <- g + facet_wrap(~rest, ncol = 1)
  } else {
    g <- ggplot(ok, aes(x = latency_ms, colour = case)) + stat_ecdf(geom = "step")
  }
  g <- g + labs(title = "Payment latency CDF", x = "latency (ms)", y = "share of payments", colour = NULL) +
    theme(legend.position = "bottom", legend.direction = "vertical")
  if (max(ok$latency_ms) > 20 * max(min(ok$latency_ms), 1e-3)) g <- g + scale_x_log10()
  save("plot-latency-cdf.png", g, 4.5 + 0.25 * length(cases))
}

# 4. Throughput timeline: successful payments completed per second since the
# case's first measured payment started (gaps between iterations show).
tl <- do.call(rbind, lapply(split(m, m$case, drop = TRUE), function(d) {
  sec <- floor((d$end_unix_ns - min(d$start_unix_ns)) / 1e9)
  n <- tabulate(sec[d$status == "succeeded"] + 1, nbins = max(sec) + 1)
  data.frame(case = d$case[1], second = seq_along(n) - 1, payments = n)
}))
tl$Node <- factor(node_of[as.character(tl$case)], levels = nodes)
# Injected faults (faults.csv, written when the run had any): each fault's
# interval shaded and labelled in its case's panel, lighter until a
# restarted node's channels were active again, a dashed line where
# throughput was back within 10%. A fault with no end (a kill) runs to the
# end of the panel. fault_layers(shift) draws them at x = T + shift: bar s
# counts payments completed in [s, s+1) and is centred on s, so on the
# throughput timeline a time T sits at x = T - 0.5; the resource
# timelines plot times as they are.
fault_layers <- function(shift) list()
ffile <- file.path(dir, "faults.csv")
if (file.exists(ffile)) {
  fl <- read.csv(ffile, stringsAsFactors = FALSE, na.strings = "NA")
  fl <- fl[fl$Case %in% levels(tl$case) & !is.na(fl$StartOffset_s), ]
  if (nrow(fl) > 0) {
    last <- tapply(tl$second, as.character(tl$case), max)
    fl$case <- factor(fl$Case, levels = levels(tl$case))
    fl$xmin <- fl$StartOffset_s
    fl$xmax <- ifelse(is.na(fl$EndOffset_s), last[fl$Case] + 1, fl$EndOffset_s)
    fl$xeff <- pmax(fl$xmax, fl$EffectEndOffset_s, na.rm = TRUE)
    fl$label <- if ("Label" %in% names(fl)) fl$Label else paste(fl$Kind, fl$Target)
    rec <- fl[!is.na(fl$Recovery_s), ]
    rec$x <- rec$EndOffset_s + rec$Recovery_s
    fault_layers <- function(shift) {
      at <- function(d) transform(d, xmin = xmin + shift, xmax = xmax + shift, xeff = xeff + shift)
      l <- list(
        geom_rect(data = at(fl), aes(xmin = xmax, xmax = xeff, ymin = -Inf, ymax = Inf), inherit.aes = FALSE, fill = "firebrick", alpha = 0.08),
        geom_rect(data = at(fl), aes(xmin = xmin, xmax = xmax, ymin = -Inf, ymax = Inf), inherit.aes = FALSE, fill = "firebrick", alpha = 0.2),
        geom_text(data = at(fl), aes(x = xmin, y = Inf, label = label), inherit.aes = FALSE, hjust = -0.05, vjust = 1.4, size = 3, colour = "firebrick"))
      if (nrow(rec) > 0) l <- c(l, list(
        geom_vline(data = transform(rec, x = x + shift), aes(xintercept = x), linetype = "dashed", colour = "darkgreen")))
      l
    }
  }
}
g <- ggplot(tl, aes(x = second, y = payments)) + fault_layers(-0.5)
g <- if (multi) g + geom_col(aes(fill = Node), width = 1) else g + geom_col(fill = "steelblue", width = 1)
g <- g + facet_wrap(~case, ncol = 1, scales = "free_x") +
  labs(title = "Throughput over time", x = "seconds since the case started", y = "payments/s")
save("plot-throughput-timeline.png", g, 1 + 1.6 * length(cases))

# 4b. Resource timelines on the throughput timeline's axis (seconds since
# the case's first measured payment started; same panels, same x range):
# each actor's CPU as a share of its limit (the host's cores when it has
# none), and its fsync + fdatasync calls per second where counted.
rfile <- file.path(dir, "resources-timeline.csv")
if (file.exists(rfile)) {
  rt <- read.csv(rfile, stringsAsFactors = FALSE, na.strings = "NA")
  rt <- rt[rt$case %in% levels(tl$case), ]
  # The throughput panel of a case spans its bars: [-0.5, last second + 0.5].
  span <- do.call(rbind, lapply(split(tl, tl$case, drop = TRUE), function(d)
    data.frame(case = d$case[1], second = c(-0.5, max(d$second) + 0.5))))
  rt <- merge(rt, aggregate(second ~ case, span, max), by = "case", suffixes = c("", ".max"))
  rt <- rt[rt$second <= rt$second.max, ]
  rt$case <- factor(rt$case, levels = levels(tl$case))
  span$case <- factor(span$case, levels = levels(tl$case))
  span <- span[span$case %in% unique(rt$case), ]
  timeline <- function(d, y, title, ylab, ref) {
    g <- ggplot(d, aes(x = second, y = .data[[y]], colour = actor)) +
      geom_blank(data = span, aes(x = second), inherit.aes = FALSE) + fault_layers(0)
    if (!is.null(ref)) g <- g + geom_hline(yintercept = ref, linetype = "dashed", colour = "grey50")
    g + geom_step(direction = "vh") +
      facet_wrap(~case, ncol = 1, scales = "free_x", drop = TRUE) +
      expand_limits(y = 0) +
      labs(title = title, x = "seconds since the case started", y = ylab, colour = NULL) +
      theme(legend.position = "bottom")
  }
  cpu <- rt[!is.na(rt$cpu_percent), ]
  if (nrow(cpu) > 0) {
    save("plot-cpu-timeline.png", timeline(cpu, "cpu_percent", "CPU utilisation over time (% of each actor's limit; of the host's cores if none)",
      "CPU % of limit", 100), 2 + 1.6 * length(unique(cpu$case)))
  }
  syncs <- rt[!is.na(rt$syncs_per_second), ]
  if (nrow(syncs) > 0) {
    save("plot-syncs-timeline.png", timeline(syncs, "syncs_per_second", "Syncs over time (fsync + fdatasync)",
      "syncs/s", NULL), 2 + 1.6 * length(unique(syncs$case)))
  }
}

# 5. Against a baseline spec: each case's Ratio (mean time over the
# baseline's) with ±RatioSD, BenchmarkDotNet's Ratio column as a chart.
if ("Ratio" %in% names(summary)) {
  r <- summary[!is.na(suppressWarnings(as.numeric(summary$Ratio))), ]
  r$Ratio <- as.numeric(r$Ratio)
  r$RatioSD <- as.numeric(r$RatioSD)
  r$Case <- factor(r$Case, levels = rev(cases))
  r$Node <- factor(r$Node, levels = nodes)
  g <- ggplot(r, aes(x = Case, y = Ratio, colour = Node)) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey50") +
    geom_pointrange(aes(ymin = Ratio - RatioSD, ymax = Ratio + RatioSD)) +
    geom_text(aes(label = Verdict), nudge_x = 0.3, size = 3, show.legend = FALSE) +
    coord_flip() + labs(title = "Time ratio to the baseline spec (±RatioSD)", x = NULL, y = "mean time / baseline mean time")
  save("plot-ratio.png", g, 1.5 + 0.6 * nrow(r))
}
