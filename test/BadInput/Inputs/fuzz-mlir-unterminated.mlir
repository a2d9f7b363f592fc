

ml_program.global private @wronapnns4xi