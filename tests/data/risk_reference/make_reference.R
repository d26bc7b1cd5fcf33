# Reference values of sdcMicro's disclosure-risk functions for infoloss's risk family.
#
# Run from this folder:   Rscript make_reference.R
# It needs sdcMicro 5.8.1 (library(sdcMicro)), or a file named in the environment variable
# SDCMICRO_LOADER that defines measure_risk, suda2, ldiversity, dRisk and freqCalc the way
# sdcMicro's data-frame methods do (see README.md for how the committed values were made).
# Writes <dataset>_<file>.csv (one row per record) and <dataset>_<file>_global.csv.

loader <- Sys.getenv("SDCMICRO_LOADER")
if (nzchar(loader)) source(loader) else suppressMessages(library(sdcMicro))

num <- function(x) sprintf("%.17g", x)

run_one <- function(dataset, file, keys, w = NULL, hid = NULL, sens = NULL, numvars = NULL) {
  dir <- file.path("..", dataset)
  dat <- read.csv(file.path(dir, paste0(file, ".csv")), stringsAsFactors = FALSE, na.strings = c("", "NA"))
  orig <- read.csv(file.path(dir, "original.csv"), stringsAsFactors = FALSE, na.strings = c("", "NA"))
  for (k in keys) if (is.character(dat[[k]])) dat[[k]] <- factor(dat[[k]])  # as createSdcObj does
  if (!is.null(w)) dat[[w]] <- orig[[w]]        # sdcMicro uses the original's weights
  if (!is.null(hid)) dat[[hid]] <- orig[[hid]]
  out <- data.frame(row = seq_len(nrow(dat)))
  glob <- list()
  f <- freqCalc(dat, keyVars = keys, w = w)
  out$fk <- num(f$fk); out$Fk <- num(f$Fk)
  mr <- measure_risk(dat, keyVars = keys, w = w, hid = hid)
  out$risk <- num(mr$Res[, "risk"])
  glob$global_risk_ER <- mr$global_risk_ER
  glob$global_risk <- mr$global_risk
  glob$n1 <- f$n1; glob$n2 <- f$n2
  if (!is.null(hid)) {
    out$hier_risk <- num(mr$Res[, "hier_risk"])
    glob$hier_risk_ER <- mr$hier_risk_ER
    glob$hier_risk <- mr$hier_risk
  }
  s <- suppressWarnings(suda2(dat, variables = keys))
  out$suda_score <- num(s$score); out$dis_score <- num(s$disScore)
  for (v in seq_along(keys)) glob[[paste0("suda_contribution_", keys[v])]] <- s$attribute_contributions$contribution[v]
  if (!is.null(sens)) {
    sd <- dat
    for (v in sens) sd[[v]][is.na(sd[[v]])] <- -999  # sdcMicro's missing code (an NA would count as a value)
    ld <- ldiversity(sd, keyVars = keys, ldiv_index = sens, missing = -999)
    for (v in sens) for (kind in c("Distinct", "Entropy", "Recursive")) {
      out[[paste0("ldiv_", v, "_", tolower(kind))]] <- num(ld[, paste0(v, "_", kind, "_Ldiversity")])
    }
  }
  if (!is.null(numvars)) {
    glob$dRisk <- dRisk(orig[, numvars, drop = FALSE], xm = dat[, numvars, drop = FALSE])
  }
  stem <- paste0(dataset, "_", file)
  write.csv(out, paste0(stem, ".csv"), row.names = FALSE, quote = FALSE)
  write.csv(data.frame(name = names(glob), value = num(unlist(glob))), paste0(stem, "_global.csv"),
            row.names = FALSE, quote = FALSE)
}

td_keys <- c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex", "age")
for (file in c("original", "ls_k3", "recode_pram_noise50", "recode_mdav3_ls_k3")) {
  run_one("testdata", file, td_keys, w = "sampling_weight", hid = "ori_hid", sens = "hhcivil",
          numvars = c("expend", "income", "savings"))
}
for (file in c("original", "ls_k2", "noise_additive50")) {
  run_one("francdat", file, c("Key1", "Key2", "Key3", "Key4"), w = "w", numvars = c("Num1", "Num2", "Num3"))
}
for (file in c("original", "recode_ls_k3", "pram_mdav3")) {
  run_one("free1", file, c("SEX", "AGE", "MARSTAT", "KINDPERS", "EDUC1"), w = "WEIGHT", sens = c("ETNI", "REGION"),
          numvars = c("INCOME", "MONEY", "ASSETS", "DEBTS"))
}
for (file in c("original", "mdav5_ls_k3")) {
  run_one("EIA", file, c("STATE", "MONTH"), sens = "YEAR")
}
# small generated files with many missing key values (sdcMicro's wildcard rules), made by make_random.py
for (file in sprintf("random%02d", 0:11)) {
  dat <- read.csv(file.path("random", paste0(file, ".csv")))
  keys <- grep("^k", colnames(dat), value = TRUE)
  f <- freqCalc(dat, keyVars = keys, w = "w")
  mr <- measure_risk(dat, keyVars = keys, w = "w", hid = "hh")
  out <- data.frame(fk = num(f$fk), Fk = num(f$Fk), risk = num(mr$Res[, "risk"]),
                    hier_risk = num(mr$Res[, "hier_risk"]))
  if (length(keys) > 1) {  # sdcMicro's suda2 fails with one key variable
    s <- suppressWarnings(suda2(dat, variables = keys))
    out$suda_score <- num(s$score); out$dis_score <- num(s$disScore)
  }
  write.csv(out, file.path("random", paste0(file, "_sdcmicro.csv")), row.names = FALSE, quote = FALSE)
}
