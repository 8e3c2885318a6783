# tflops_vs_s.gp: rendered by attnlab-report from the newest ok record of every phase and shape under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_vs_s.gp (reads tflops_vs_s.dat, writes tflops_vs_s.png)
set terminal pngcairo size 900,700 enhanced font 'DejaVu Sans,10'
set output 'tflops_vs_s.png'
set title 'TFLOPS against sequence length S (newest ok record of each phase and shape, headline regime)' noenhanced
set logscale x 2
set xrange [320:13107.2]
set xtics ("512" 512, "1024" 1024, "2048" 2048, "4096" 4096, "8192" 8192) noenhanced
set xlabel 'sequence length S (B shrinks as S grows; shapes in tflops_vs_s.dat)' noenhanced
set ylabel 'TFLOPS'
set key below maxrows 7 font ',8' noenhanced
set grid lc rgb '#dddddd'
set logscale y
set yrange [1:1000]
plot 'tflops_vs_s.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' dt 1 title 'phase 1, D=64', \
     'tflops_vs_s.dat' index 1 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' dt 2 title 'phase 1, D=128', \
     'tflops_vs_s.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#ff7f0e' dt 1 title 'phase 2, D=64', \
     'tflops_vs_s.dat' index 3 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#ff7f0e' dt 2 title 'phase 2, D=128', \
     'tflops_vs_s.dat' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#2ca02c' dt 1 title 'phase 3a, D=64', \
     'tflops_vs_s.dat' index 5 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#2ca02c' dt 2 title 'phase 3a, D=128', \
     'tflops_vs_s.dat' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#d62728' dt 1 title 'phase 3b, D=64', \
     'tflops_vs_s.dat' index 7 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#d62728' dt 2 title 'phase 3b, D=128', \
     'tflops_vs_s.dat' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#9467bd' dt 1 title 'phase 3c, D=64', \
     'tflops_vs_s.dat' index 9 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#9467bd' dt 2 title 'phase 3c, D=128', \
     'tflops_vs_s.dat' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#8c564b' dt 1 title 'phase 4, D=64', \
     'tflops_vs_s.dat' index 11 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#8c564b' dt 2 title 'phase 4, D=128', \
     'tflops_vs_s.dat' index 12 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#e377c2' dt 1 title 'phase 4x, D=64', \
     'tflops_vs_s.dat' index 13 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#e377c2' dt 2 title 'phase 4x, D=128', \
     'tflops_vs_s.dat' index 14 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#bcbd22' dt 1 title 'phase d1, D=64', \
     'tflops_vs_s.dat' index 15 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#bcbd22' dt 2 title 'phase d1, D=128', \
     'tflops_vs_s.dat' index 16 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#17becf' dt 1 title 'phase d2, D=64', \
     'tflops_vs_s.dat' index 17 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#17becf' dt 2 title 'phase d2, D=128', \
     'tflops_vs_s.dat' index 18 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#aec7e8' dt 1 title 'phase d3, D=64', \
     'tflops_vs_s.dat' index 19 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#aec7e8' dt 2 title 'phase d3, D=128', \
     'tflops_vs_s.dat' index 20 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#98df8a' dt 1 title 'phase sdpa-cudnn, D=64', \
     'tflops_vs_s.dat' index 21 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#98df8a' dt 2 title 'phase sdpa-cudnn, D=128', \
     'tflops_vs_s.dat' index 22 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#ff9896' dt 1 title 'phase sdpa-efficient, D=64', \
     'tflops_vs_s.dat' index 23 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#ff9896' dt 2 title 'phase sdpa-efficient, D=128', \
     'tflops_vs_s.dat' index 24 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#c5b0d5' dt 1 title 'phase sdpa-flash, D=64', \
     'tflops_vs_s.dat' index 25 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#c5b0d5' dt 2 title 'phase sdpa-flash, D=128'
